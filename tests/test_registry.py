"""The translator as an MLflow model: logged into its training run, loaded in a fresh process,
served by `mlflow models serve`, registered and promoted to `@champion`."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import mlflow
import pytest
import yaml
from servers import post, serving

from attention_lab import cli
from attention_lab.data.numbers import missing_numbers
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.tracking import registry, served_model
from attention_lab.tracking import run as mlflow_run
from attention_lab.tracking import store as tracking

SENTENCES = ["I see the cat.", "We like the book."]


@pytest.fixture(scope="module")
def store(own_store: Path) -> Path:
    return own_store


def training_run(bleu: float | None) -> str:
    """A finished training run with `test.beam.bleu` = `bleu` (none when None), as evaluate logs it."""
    run = mlflow_run.Run.create(tracking.MlflowParams(experiment="registry"), "train_seq2seq")
    if bleu is not None:
        run.log_metrics({"test.beam.bleu": bleu})
    run.finish()
    return run.run_id


@pytest.fixture(scope="module")
def logged(store: Path, trained_model: Path) -> tuple[str, str]:
    """(training run id, model id) of the trained model logged as an MLflow model."""
    run_id = training_run(30.0)
    return run_id, registry.log_translator(run_id, trained_model / "model.pt")


@pytest.fixture(scope="module")
def expected(trained_model: Path) -> dict[int, list[str]]:
    """What the translator itself says, by beam size."""
    translator = Translator.load(trained_model, "cpu")
    by_beam = {k: [t.text for t in translator.translate(SENTENCES, SearchParams(beam_size=k))] for k in (1, 3, 4)}
    return by_beam | {"options": [t.text for t in translator.translate(SENTENCES, SearchParams(**OPTIONS))]}


def answer(texts: list[str]) -> list[dict]:
    """The served model's rows for `texts`, translations of SENTENCES-like lines, which have no digits."""
    return [{"translation": text, "missing_numbers": "", "missing_terms": "", "checks": ""} for text in texts]


def test_the_logged_model_records_its_run_corpus_signature_and_files(store, logged, trained_model, tmp_path):
    run_id, model_id = logged
    client = tracking.client()
    model = client.get_logged_model(model_id)
    assert model.source_run_id == run_id and model.name == registry.LOGGED_NAME
    assert model.tags["corpus_md5"] == tracking.corpus_hash()
    assert [m.model_id for m in client.get_run(run_id).outputs.model_outputs] == [model_id]
    assert client.get_experiment(model.experiment_id).artifact_location == (store / "mlruns").as_uri()

    local = Path(mlflow.artifacts.download_artifacts(f"models:/{model_id}", dst_path=str(tmp_path)))
    mlmodel = yaml.safe_load((local / "MLmodel").read_text())
    assert json.loads(mlmodel["signature"]["inputs"]) == [{"type": "string", "name": "text", "required": True}]
    assert [c["name"] for c in json.loads(mlmodel["signature"]["outputs"])] == ["translation", "missing_numbers",
                                                                                "missing_terms", "checks"]
    assert {p["name"]: p["default"] for p in json.loads(mlmodel["signature"]["params"])} == \
        {k: v for k, v in dataclasses.asdict(SearchParams()).items()
         if k not in ("batch_size", "max_source_chars", "max_source_pieces", "max_output_pieces")} | \
        {"glossary": []}  # the server's limits are not params; a glossary is none by default
    assert (local / "artifacts" / "model.pt").read_bytes() == (trained_model / "model.pt").read_bytes()
    # the code travels with the model
    assert (local / "code" / "attention_lab" / "inference" / "translator.py").is_file()
    assert json.loads((local / "input_example.json").read_text()) == \
        {"columns": ["text"], "data": [[s] for s in registry.INPUT_EXAMPLE]}
    assert any(line.startswith("torch==") for line in (local / "requirements.txt").read_text().splitlines())


# Every search option a request may send, none at its default; min_len_ratio makes outputs longer.
OPTIONS = {"beam_size": 3, "length_penalty": 0.6, "coverage_penalty": 0.4, "min_len_ratio": 2.0, "max_len_ratio": 3.0,
           "max_len_extra": 4, "split_sentences": False, "copy_numbers": False, "drop_repeats": False}

LOAD = textwrap.dedent("""
    import json, sys
    import mlflow, pandas as pd
    sentences = pd.DataFrame({"text": json.loads(sys.argv[1])})
    options = json.loads(sys.argv[2])
    for uri in sys.argv[3:]:
        model = mlflow.pyfunc.load_model(uri)
        import attention_lab
        print(json.dumps({"beam": model.predict(sentences).to_dict("records"),
                          "greedy": model.predict(sentences, params={"beam_size": 1}).to_dict("records"),
                          "options": model.predict(sentences, params=options).to_dict("records"),
                          "package": attention_lab.__file__}))
""")


def test_the_logged_model_translates_in_a_fresh_process(logged, expected, tmp_path):
    run_id, model_id = logged
    uris = [f"models:/{model_id}", f"runs:/{run_id}/{registry.LOGGED_NAME}"]
    result = subprocess.run([sys.executable, "-c", LOAD, json.dumps(SENTENCES), json.dumps(OPTIONS), *uris],
                            cwd=tmp_path, env=os.environ.copy(), capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    outputs = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert len(outputs) == len(uris)
    for out in outputs:
        assert out["beam"] == answer(expected[4]) and out["greedy"] == answer(expected[1])
        # The options pass MLflow's signature and reach the search: the translator's own output with
        # them, longer than without (min_len_ratio).
        assert out["options"] == answer(expected["options"])
        assert all(len(with_["translation"]) > len(without) for with_, without in zip(out["options"], expected[3]))
        assert all(isinstance(row["translation"], str) and row["translation"] for row in out["beam"])
        # It ran the package copy logged with the model, not whatever is installed now.
        assert f"{os.sep}code{os.sep}attention_lab{os.sep}" in out["package"]


def test_promote_moves_the_champion_only_to_a_better_model(store, trained_model):
    name = "promote-test"
    model = trained_model / "model.pt"
    first, worse, better = training_run(30.0), training_run(20.0), training_run(35.0)
    for run_id in (first, worse, better):
        registry.log_translator(run_id, model)
    client = tracking.client()

    line = registry.promote(first, name=name)
    assert line.endswith("@champion moved to it: there was no champion") and "\n" not in line
    line = registry.promote(worse, name=name)
    assert line == (f"registered {name} version 2 (run {worse}, test.beam.bleu = 20.00); "
                    "@champion stays on version 1 (test.beam.bleu = 30.00 >= 20.00)")
    assert str(client.get_model_version_by_alias(name, "champion").version) == "1"
    line = registry.promote(better, name=name)
    assert line.endswith("@champion moved to it: beats version 1 (30.00)")
    champion = client.get_model_version_by_alias(name, "champion")
    assert str(champion.version) == "3" and champion.run_id == better
    assert registry.promote(better, name=name).endswith("is already @champion")
    assert len(client.search_model_versions(f"name = '{name}'")) == 3  # promoting again registers nothing new


def test_promote_errors_are_one_line_with_exit_status_2(store, trained_model, tmp_path, capsys):
    modelless, unevaluated = training_run(None), training_run(None)
    registry.log_translator(unevaluated, trained_model / "model.pt")
    capsys.readouterr()  # MLflow's logging while the model was logged
    cases = [(["--run-id", "0123456789abcdef"], "MLflow run 0123456789abcdef not found at"),
             (["--model-dir", str(tmp_path)], f"{tmp_path / 'mlflow_run.json'}: no such file"),
             (["--run-id", modelless], "logged no model: train with the train_seq2seq stage"),
             (["--run-id", unevaluated], "has no metric 'test.beam.bleu': run the evaluate stage first")]
    for args, message in cases:
        with pytest.raises(SystemExit) as exit_:
            cli.main(["promote", *args])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and err.startswith("error: ") and message in err
        assert err.count("\n") == 1, err


def test_promote_from_the_model_folder(store, logged, tmp_path, capsys):
    run_id, _ = logged
    (tmp_path / "mlflow_run.json").write_text(json.dumps({"run_id": run_id, "experiment": "registry"}))
    cli.main(["promote", "--model-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert f"{registry.MODEL_NAME} version 1 (run {run_id}, test.beam.bleu = 30.00)" in out and out.count("\n") == 1
    assert tracking.client().get_model_version_by_alias(registry.MODEL_NAME, "champion").run_id == run_id


@pytest.fixture(scope="module")
def champion(store, logged, tmp_path_factory):
    """The README's `mlflow models serve` of the champion (the logged model, promoted), on loopback:
    one server for this module's HTTP tests, as starting one takes seconds."""
    registry.promote(logged[0])
    # `mlflow models serve` runs `uvicorn` from PATH, as in an activated virtualenv.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    args = ["models", "serve", "-m", f"models:/{registry.MODEL_NAME}@champion", "--env-manager", "local",
            "--workers", "1"]
    root = tmp_path_factory.mktemp("serve")
    with serving(args, "/ping", root, env, root / "serve.log", timeout=120) as base:
        yield base


def test_the_champion_is_served_over_http_and_survives_bad_requests(champion, expected):
    url = f"{champion}/invocations"
    status, body = post(url, {"dataframe_records": [{"text": s} for s in SENTENCES]})
    assert (status, body) == (200, {"predictions": answer(expected[4])})
    status, body = post(url, {"inputs": {"text": SENTENCES}, "params": {"beam_size": 1}})
    assert (status, body) == (200, {"predictions": answer(expected[1])})
    status, body = post(url, {"dataframe_records": [{"text": " ".join(SENTENCES)}]})  # one line, two sentences
    assert (status, body) == (200, {"predictions": answer([" ".join(expected[4])])})

    bad = [(b"{not json", "Invalid input"),
           ({"dataframe_records": [{"txt": "I see the cat."}]}, "Model is missing inputs ['text']"),
           ({"dataframe_records": [{"text": 5}]}, "row 1: 'text' must be a string, got int 5"),
           ({"dataframe_records": [{"text": "I see the cat."}], "params": {"beam_size": 0}},
            "params.beam_size: must be >= 1, got 0"),
           ({"dataframe_records": [{"text": "I see the car."}], "params": {"glossary": [["car", "auto"]]}},
            "glossary"),  # MLflow's signature check: a list of strings
           ({"dataframe_records": [{"text": "I see the car."}], "params": {"glossary": ["car auto"]}},
            "params.glossary: entry 1: expected 'English<TAB>French'")]
    for request, reason in bad:
        status, body = post(url, request)
        assert 400 <= status < 500, (request, status, body)
        assert reason in body["message"], body
    assert post(url, "I see the cat.", content_type="text/plain")[0] == 415
    status, body = post(url, {"dataframe_split": {"columns": ["text"], "data": [[SENTENCES[0]]]}})
    assert (status, body) == (200, {"predictions": answer(expected[4][:1])})  # still serving
    status, body = post(url, {"inputs": {"text": ["I see the car.", "Go."]},
                              "params": {"glossary": ["car\tautomobile"], "beam_size": 4}})
    assert status == 200 and "automobile" in body["predictions"][0]["translation"], body
    assert [row["missing_terms"] for row in body["predictions"]] == ["", ""]


def test_the_served_model_bounds_the_work_of_a_request(champion, expected):
    """Abuse on loopback against a real `mlflow models serve`: every request is answered or refused
    with 400 naming the row or the limit, and a normal request works after each."""
    url = f"{champion}/invocations"
    normal = {"inputs": {"text": SENTENCES}}

    def still_serving():
        assert post(url, normal) == (200, {"predictions": answer(expected[4])})

    still_serving()
    settled = champion.memory()
    long = " ".join(["cat"] * 3000)
    abuse = [({"inputs": {"text": ["Go.", long]}}, "row 2: "),
             ({"inputs": {"text": ["Go."] * 5000}}, f"over the {served_model.MAX_REQUEST_PIECES} one request"),
             ({"inputs": {"text": ["Go."]}, "params": {"beam_size": 32}}, "params.beam_size: at most 16"),
             ({"inputs": {"text": ["Go."]}, "params": {"beam_size": 1000}}, "params.beam_size: must be <= 64"),
             ({"inputs": {"text": ["Go."]}, "params": {"length_penalty": float("inf")}},
              "params.length_penalty: must be a finite number"),
             ({"inputs": {"text": ["Go."]}, "params": {"max_len_ratio": float("nan")}},
              "params.max_len_ratio: must be a finite number"),
             ({"inputs": {"text": ["Go.", "🐱 " * 50_000]}}, "row 2: 100000 characters, over the 4096 a line may"),
             # A lone surrogate is valid JSON: MLflow refuses it in each form, building the DataFrame (pandas'
             # strings are UTF-8), before the model, which refuses it too (a DataFrame of objects may hold one).
             ({"inputs": {"text": ["Go.", "\ud800 hello"]}}, "surrogates not allowed"),
             ({"dataframe_records": [{"text": "Go."}, {"text": "\ud800 hello"}]}, "surrogates not allowed"),
             ({"dataframe_split": {"columns": ["text"], "data": [["Go."], ["\ud800 hello"]]}},
              "surrogates not allowed")]
    for request, reason in abuse:
        status, body = post(url, request)
        assert status == 400 and reason in body["message"], (status, body)
        still_serving()
    # A request cannot lift the server's limits: MLflow drops params the signature lacks.
    status, body = post(url, {"inputs": {"text": ["Go.", long]}, "params": {"max_source_pieces": 10**6}})
    assert status == 400 and "row 2: " in body["message"], body
    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(lambda _: post(url, normal), range(20)))
    assert answers == [(200, {"predictions": answer(expected[4])})] * 20
    still_serving()
    assert champion.memory() < settled + 300 * 2**20, (settled, champion.memory())


@pytest.fixture
def served(trained_model):
    model = served_model.TranslatorModel()
    model.translator = Translator.load(trained_model, "cpu")
    return model


def test_a_request_past_its_share_of_time_is_refused_naming_the_limit(served, monkeypatch):
    """The deadline is checked at every output step, not once before the search: on a clock that
    ticks a second per reading, a 2-s share runs out at the search's third step."""
    import pandas as pd
    from mlflow.exceptions import MlflowException

    from attention_lab.inference.search_steps import SearchTimeout

    frame = pd.DataFrame({served_model.TEXT: SENTENCES})
    translations = [t.text for t in served.translator.translate(SENTENCES)]
    assert served.predict(None, frame)["translation"].tolist() == translations
    ticks = iter(range(1000))
    monkeypatch.setattr("time.monotonic", lambda: float(next(ticks)))  # predict reads 0: the deadline is 2
    monkeypatch.setattr(served_model, "MAX_REQUEST_SECONDS", 2.0)
    with pytest.raises(MlflowException, match=r"^2 rows need more than the 2 s one request may take to be read, "
                                              r"searched and written: ") as exc:
        served.predict(None, frame)
    assert exc.value.get_http_status_code() == 400
    assert isinstance(exc.value.__context__, SearchTimeout)
    assert str(exc.value.__context__) == "search passed its deadline at output step 3"
    assert next(ticks) == 4  # no reading after the step that tripped


def test_a_request_over_the_piece_cap_is_refused_before_any_search(served, monkeypatch):
    import pandas as pd
    from mlflow.exceptions import MlflowException

    pieces = sum(map(len, served.translator.tokenizer.src.encode_all(SENTENCES)))
    monkeypatch.setattr(served_model, "MAX_REQUEST_PIECES", pieces - 1)
    monkeypatch.setattr("attention_lab.inference.translator.run_search",
                        lambda *a, **k: pytest.fail("the search ran before the request's size was checked"))
    with pytest.raises(MlflowException, match=rf"^2 rows of {pieces} source pieces in all, over the {pieces - 1} "):
        served.predict(None, pd.DataFrame({served_model.TEXT: SENTENCES}))


def test_each_row_is_read_once_and_the_share_of_time_counts_the_reading(served, monkeypatch):
    """Rows were read to count their pieces, then again to translate them, and the clock started after the first."""
    import pandas as pd
    from mlflow.exceptions import MlflowException

    from attention_lab.inference import translator

    clock, reads, real = [0.0], [], translator.read_lines

    def slow_read(lines, *args):
        reads.append(list(lines))
        clock[0] += 3.0  # a reading that takes 3 s
        return real(lines, *args)

    frame = pd.DataFrame({served_model.TEXT: ["", *SENTENCES]})
    expected = [t.text for t in served.translator.translate(SENTENCES)]
    monkeypatch.setattr(translator, "read_lines", slow_read)
    assert served.predict(None, frame)["translation"].tolist() == ["", *expected]
    assert reads == [SENTENCES]
    monkeypatch.setattr("time.monotonic", lambda: clock[0])
    monkeypatch.setattr(served_model, "MAX_REQUEST_SECONDS", 2.0)
    with pytest.raises(MlflowException, match=r"^2 rows need more than the 2 s one request may take") as exc:
        served.predict(None, frame)
    assert str(exc.value.__context__) == "search passed its deadline at output step 1"
    assert len(reads) == 2


def test_a_row_that_is_no_text_or_over_a_character_limit_is_refused_before_any_reading(served, monkeypatch):
    import pandas as pd
    from mlflow.exceptions import MlflowException

    monkeypatch.setattr("attention_lab.inference.translator.read_lines",
                        lambda *a: pytest.fail("a row was read before every row was checked"))
    # Objects: a column of pandas' strings is UTF-8, which a lone surrogate is not (MLflow's server fails there).
    rows = pd.DataFrame({served_model.TEXT: ["Go.", "", "\ud800 hello", "x" * 5000]}, dtype=object)
    message = r"^row 3: not UTF-8 text \(surrogates not allowed at character 1\)$"
    with pytest.raises(MlflowException, match=message) as exc:
        served.predict(None, rows)
    assert exc.value.get_http_status_code() == 400
    with pytest.raises(MlflowException, match=r"^row 4: 5000 characters, over the 4096 a line may have: split it "
                                              r"into shorter lines$"):
        served.predict(None, pd.DataFrame({served_model.TEXT: ["Go.", "", "I see the cat.", "x" * 5000]}))
    monkeypatch.setattr(served_model, "MAX_REQUEST_CHARS", 16)
    with pytest.raises(MlflowException, match=r"^2 rows of 17 characters in all, over the 16 one request may hold: "):
        served.predict(None, pd.DataFrame({served_model.TEXT: ["Go.", "", "I see the cat."]}))


def test_every_search_option_of_a_request_reaches_the_search(served, monkeypatch):
    import pandas as pd

    assert set(OPTIONS) == set(served_model.REQUEST_PARAMS)
    seen = []
    real = served.translator.translate
    monkeypatch.setattr(served.translator, "translate", lambda sentences, search, *args, **kwargs:
                        seen.append(search) or real(sentences, search, *args, **kwargs))
    for name, value in OPTIONS.items():
        served.predict(None, pd.DataFrame({served_model.TEXT: SENTENCES}), {name: value})
        assert getattr(seen[-1], name) == value != getattr(SearchParams(), name), name
        assert dataclasses.replace(seen[-1], **{name: getattr(SearchParams(), name)}) == SearchParams(), name


def test_blank_rows_answer_blank_and_rows_keep_their_numbers(served):
    import pandas as pd
    from mlflow.exceptions import MlflowException

    rows = ["", SENTENCES[0], "   ", SENTENCES[1]]
    expected = [t.text for t in served.translator.translate(SENTENCES)]
    assert served.predict(None, pd.DataFrame({served_model.TEXT: rows})).to_dict("records") == \
        answer(["", expected[0], "", expected[1]])
    short, long = served.translator.tokenizer.src.encode_all(["Go.", "I see the cat on the car."])
    assert len(short) < len(long)
    with pytest.raises(MlflowException, match=rf"^row 3: {len(long)} pieces, over the {len(short)} a sentence may"):
        served.predict(None, pd.DataFrame({served_model.TEXT: ["", "Go.", "I see the cat on the car."]}),
                      {"max_source_pieces": len(short)})
    with pytest.raises(MlflowException, match=r"^row 3: 'text' must be a string, got int 5"):
        served_model.sentences_of(pd.DataFrame({served_model.TEXT: ["Go.", "", 5]}))


def test_a_request_with_copy_numbers_false_lets_the_search_write_a_number_the_source_lacks(digit_model):
    import pandas as pd

    served = served_model.TranslatorModel()
    served.translator = Translator.load(digit_model, "cpu")
    line = "I see 3 cats."
    rows = pd.DataFrame({served_model.TEXT: [line]})
    [kept], [free] = (served.predict(None, rows, params)["translation"] for params in (None, {"copy_numbers": False}))
    assert missing_numbers(kept, line) == [] and missing_numbers(free, line), free  # numbers the line lacks


def test_the_served_model_names_the_numbers_a_translation_lacks(served, monkeypatch):
    """The tiny corpus has no digits: the model cannot read them and carries them to the output.
    Dropped instead, they are missing, and the row says which."""
    import pandas as pd

    rows = pd.DataFrame({served_model.TEXT: ["I see 3 cats and 12 dogs.", "I see the cat.", ""]})
    assert served.predict(None, rows)[["missing_numbers", "checks"]].values.tolist() == [["", ""]] * 3
    monkeypatch.setattr("attention_lab.text.protect.put_back",
                        lambda carried, source, pieces, attention, src, tgt, recase=str: recase(tgt.join(pieces)))
    out = served.predict(None, rows)
    assert out["missing_numbers"].tolist() == ["3 12", "", ""] and out["checks"].tolist()[1:] == ["", ""]
    # All the check found: the digits, carried around the model and dropped, are missing as numbers and as text
    assert json.loads(out["checks"][0]) == {"missing_numbers": ["3", "12"], "missing_carried": ["3", "12"]}

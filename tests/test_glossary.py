"""A user's glossary: its file's errors, matching (whole words, case aside, longest first, linear), and the
translator writing its terms on a trained model, in the CLI, the served model and the explorer page."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.text.glossary import Glossary, GlossaryError, missing_terms, term_pieces

GLOSSARY = [("sales team", "équipe commerciale"), ("team", "équipe"), ("car", "voiture"),
            ("BlueSky Bank", "BlueSky Bank"), ("bank", "banque"), ("e-mail", "courriel"), ("data base", "base")]


def found(text: str, pairs=GLOSSARY) -> list[tuple[str, str]]:
    return [(m.english, m.french) for m in Glossary(pairs).matches(text)]


def test_terms_match_as_whole_words_case_aside_longest_first():
    assert found("Our SALES TEAM met the team.") == [("SALES TEAM", "équipe commerciale"), ("team", "équipe")]
    assert found("Carter's car, the cars, a card.") == [("car", "voiture")]  # no term inside a word
    assert found("I bank at BlueSky Bank; the bank.") == [("bank", "banque"), ("BlueSky Bank", "BlueSky Bank"),
                                                          ("bank", "banque")]  # a term inside a name: the name
    assert found("Send an e-mail to the team-lead.") == [("e-mail", "courriel"), ("team", "équipe")]
    assert found("The data  base, the database.") == []  # spaces as the term has them
    assert found("the sales teams") == []  # `team` is inside `teams`; `sales team` too
    assert found("ÉQUIPE car") == [("car", "voiture")]


def test_matches_never_overlap_and_the_first_start_wins():
    pairs = [("new york", "New York"), ("york city", "ville d'York"), ("city", "ville")]
    assert found("New York City", pairs) == [("New York", "New York"), ("City", "ville")]


def reference_matches(text: str, pairs) -> list[tuple[int, int]]:
    """What `matches` must give, by brute force: at each position not inside a word, the longest term (as a
    regular expression, case aside) that ends at a word's end; then on after it."""
    out, i = [], 0
    while i < len(text):
        best = None
        if not (i and re.match(r"\w\w", text[i - 1 : i + 1])):
            for english, _ in pairs:
                end = i + len(english)
                if text[i:end].lower() == english.lower() and not re.match(r"\w\w", text[end - 1 : end + 1]):
                    best = max(best or 0, end)
        if best:
            out.append((i, best))
            i = best
        else:
            i += 1
    return out


WORDS = ["car", "card", "team", "sales", "Bank", "a", "data"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join), min_size=1, max_size=6,
                unique_by=str.lower),
       st.lists(st.sampled_from(WORDS + [",", " ", "-", "'s", "é"]), max_size=30).map(" ".join))
def test_generated_glossaries_match_as_the_brute_force_does(terms, text):
    pairs = [(term, "fr" + "x" * k) for k, term in enumerate(terms)]
    glossary = Glossary(pairs)
    got = glossary.matches(text)
    assert [(m.start, m.end) for m in got] == reference_matches(text, pairs)
    for m in got:  # each match names its own term's French
        assert m.french == dict((e.lower(), f) for e, f in pairs)[m.english.lower()]


def test_matching_is_linear_in_the_line():
    # At each position a walk of at most the longest term's characters: count the trie's steps.
    glossary = Glossary([(" ".join(["a"] * 20), "x"), ("a b", "y")])
    steps = []

    class Counting(dict):
        def get(self, key, default=None):
            steps.append(key)
            return super().get(key, default)

    def counted(node):
        return Counting({k: counted(v) if isinstance(v, dict) else v for k, v in node.items()})

    glossary.trie = counted(glossary.trie)
    counts = {}
    for n in (1_000, 4_000):
        steps.clear()
        text = "a " * n + "b"
        glossary.matches(text)
        counts[n] = len(steps)
        assert len(steps) <= len(text) * (glossary.longest + 1), (n, len(steps))
    assert counts[4_000] <= 4.1 * counts[1_000], counts


@pytest.mark.parametrize("content, error", [
    ("car\tvoiture\nbus\n", "g.tsv: line 2: expected 'English<TAB>French', got 'bus'"),
    ("car\tvoiture\n\n# a comment\nCar\tauto\n", "g.tsv: line 4: 'Car' is already line 1"),
    ("car\t \n", "g.tsv: line 1: a term needs an English and a French side"),
    ("car\tvoiture\ta\n", "g.tsv: line 1: expected 'English<TAB>French'"),
    ("windows\tWindows 11\n", "g.tsv: line 1: 'Windows 11' has digits"),
    ("...\tpoints\n", "g.tsv: line 1: '...' has no word to match"),
    (f"{'a' * 201}\tb\n", "g.tsv: line 1: a term of more than 200 characters"),
])
def test_a_bad_glossary_line_is_one_error_naming_the_file_and_line(tmp_path, content, error):
    path = tmp_path / "g.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(GlossaryError) as raised:
        Glossary.load(path)
    assert str(raised.value).endswith(error) or error in str(raised.value), str(raised.value)


def test_a_glossary_file_that_is_missing_or_not_text_is_named(tmp_path):
    (tmp_path / "bad.tsv").write_bytes(b"car\tvoit\xffure\n")
    for path, error in ((tmp_path / "none.tsv", "no such glossary file"), (tmp_path, "is a directory"),
                        (tmp_path / "bad.tsv", "not UTF-8 text (byte 9)")):
        with pytest.raises(GlossaryError, match=re.escape(f"{path}: {error}")):
            Glossary.load(path)
    (tmp_path / "ok.tsv").write_text("\ufeffcar\tvoiture\r\n# note\n\nsales team\téquipe commerciale\n", "utf-8")
    assert Glossary.load(tmp_path / "ok.tsv").pairs == [("car", "voiture"), ("sales team", "équipe commerciale")]


def test_the_check_after_writing_names_the_terms_a_translation_lacks():
    assert missing_terms("La Base de données est lente.", ["base de données", "courriel"]) == ["courriel"]
    assert missing_terms("Les bases de données.", ["base de données"]) == ["base de données"]  # a whole word


CAR = [("car", "automobile")]  # a French word the tiny corpus never has: the model would not write it


def test_a_trained_model_writes_each_term_and_an_empty_glossary_changes_nothing(trained_model):
    translator = Translator.load(trained_model, "cpu")
    lines = ["I see the car.", "She takes the car and he likes the dog.", "Go.", "We want the book."]
    plain = translator.translate(lines)
    assert "automobile" not in " ".join(t.text for t in plain)
    for search in (SearchParams(), SearchParams(beam_size=4)):
        kept = translator.translate(lines, search, glossary=Glossary(CAR))
        assert ["automobile" in t.text for t in kept] == [True, True, False, False], [t.text for t in kept]
        assert all(t.missing_terms == [] for t in kept)
        assert [t.carried for t in kept] == [t.carried for t in plain]  # a term is no carried span
        pieces = [kept[0].output_labels[r] for r in kept[0].term_rows]  # the term's pieces, its elision too
        assert re.fullmatch(r"(.'|.<0x27>)?automobile", "".join(pieces).replace("▁", "")), pieces
    assert [t.text for t in translator.translate(lines, glossary=Glossary([]))] == [t.text for t in plain]
    greedy = SearchParams(beam_size=1)  # the glossary needs the beam: greedy as without it, the terms named
    plain_greedy, kept_greedy = (translator.translate(lines, greedy, glossary=g) for g in (None, Glossary(CAR)))
    assert [t.text for t in kept_greedy] == [t.text for t in plain_greedy]
    assert [t.missing_terms for t in kept_greedy] == [["automobile"], ["automobile"], [], []]
    other = translator.translate(lines, glossary=Glossary([("elephant", "elephant")]))  # no term in the lines
    assert [t.text for t in other] == [t.text for t in plain]


def test_a_glossary_name_is_read_as_typed_and_its_term_kept_as_given(trained_model):
    from attention_lab.data.corpus_words import CorpusWords
    from attention_lab.text.names import placeheld

    words = CorpusWords(frozenset("i met and at".split()), frozenset())
    defined = Glossary([("Acme Cloud", "Acme Cloud"), ("olga", "Olga")]).words
    assert placeheld("I met Olga at Acme Cloud.", words) == ("I met Tom at Mary.", (("Tom", "Olga"),
                                                                                    ("Mary", "Acme Cloud")))
    assert placeheld("I met Olga at Acme Cloud.", words, defined) == ("I met Olga at Acme Cloud.", ())
    translator = Translator.load(trained_model, "cpu")
    [loud] = translator.translate(["I SEE THE CAR."], SearchParams(beam_size=4), glossary=Glossary(CAR))
    assert "automobile" in loud.text and "AUTOMOBILE" not in loud.text, loud.text  # the capitals skip the term


def test_a_term_the_model_cannot_write_is_refused_before_any_work(trained_model):
    translator = Translator.load(trained_model, "cpu")
    with pytest.raises(GlossaryError, match=r"^terms: line 2: the model cannot write '猫'"):
        translator.translate(["I see the cat."], glossary=Glossary([("dog", "chien"), ("cat", "猫")], "terms"))


def test_term_pieces_are_the_term_alone_or_after_an_elision(trained_model):
    codec = Translator.load(trained_model, "cpu").tokenizer.tgt
    forms = [codec.join(codec.id_pieces(form)) for form in term_pieces(codec, "automobile")]
    assert forms == ["automobile", "l'automobile", "d'automobile"]
    assert term_pieces(codec, "voiture") == (tuple(codec.encode("voiture")[:-1]),)  # no elision before a consonant


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attention_lab.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_translate_takes_a_glossary_and_names_a_bad_one(trained_model, tmp_path):
    (tmp_path / "terms.tsv").write_text("car\tautomobile\n", encoding="utf-8")
    (tmp_path / "bad.tsv").write_text("car automobile\n", encoding="utf-8")
    done = run_cli("translate", "--model", str(trained_model), "--glossary", "terms.tsv", "I see the car.",
                   "--html", "page.html", cwd=tmp_path)
    assert done.returncode == 0 and "automobile" in done.stdout, done.stderr
    from attention_lab.evaluation.explorer import read_page_data

    [sentence] = read_page_data((tmp_path / "page.html").read_text(encoding="utf-8"))["sentences"]
    beam = sentence["results"][-1]
    assert "".join(beam["out"][r] for r in beam["terms"]).replace("▁", "").endswith("automobile")
    bad = run_cli("translate", "--model", str(trained_model), "--glossary", "bad.tsv", "--output", "out.txt",
                  "I see the car.", cwd=tmp_path)
    assert bad.returncode == 2 and not (tmp_path / "out.txt").exists()
    assert bad.stderr.strip() == "error: bad.tsv: line 1: expected 'English<TAB>French', got 'car automobile'"


def test_the_served_model_takes_a_glossary_and_refuses_a_bad_one_with_400(trained_model):
    import pandas as pd
    from mlflow.exceptions import MlflowException

    from attention_lab.tracking import served_model

    served = served_model.TranslatorModel()
    served.translator = Translator.load(trained_model, "cpu")
    rows = pd.DataFrame({served_model.TEXT: ["I see the car.", "Go."]})
    out = served.predict(None, rows, {"glossary": ["car\tautomobile"], "beam_size": 4})
    assert "automobile" in out["translation"][0] and out["missing_terms"].tolist() == ["", ""]
    for entries, reason in ((["car automobile"], "params.glossary: entry 1: expected 'English<TAB>French'"),
                            (["car\tvoiture", "CAR\tauto"], "params.glossary: entry 2: 'CAR' is already entry 1"),
                            (["cat\t猫"], "params.glossary: entry 1: the model cannot write '猫'"),
                            (["a\tb"] * 1001, "params.glossary: 1,001 terms, over the 1,000 a request may hold")):
        with pytest.raises(MlflowException, match=re.escape(reason)) as raised:
            served.predict(None, rows, {"glossary": entries})
        assert raised.value.get_http_status_code() == 400


def test_evaluate_scores_a_run_with_the_glossary_of_its_params(trained_model, tmp_path):
    import pandas as pd

    from attention_lab.evaluation.report import EvaluateParams, score_test_split

    (tmp_path / "terms.tsv").write_text("car\tautomobile\n", encoding="utf-8")
    test = pd.DataFrame({"src": ["I see the car.", "Go.", "She takes the car."],
                         "tgt": ["Je vois la voiture.", "Va !", "Elle prend la voiture."]})
    translator = Translator.load(trained_model, "cpu")
    params = EvaluateParams(search=SearchParams(beam_size=4), glossary=str(tmp_path / "terms.tsv"),
                            input_checks=False)
    metrics, rows, _ = score_test_split(translator, test, params)
    assert (metrics["beam"]["glossary_terms"], metrics["beam"]["term_use"]) == (2, 1.0)
    assert all("automobile" in text for text in rows["hypothesis"][[0, 2]])
    assert metrics["greedy"]["term_use"] < 1.0  # greedy does not write the terms
    plain, _, _ = score_test_split(translator, test, EvaluateParams(search=SearchParams(beam_size=4)))
    assert "term_use" not in plain["beam"]
    with pytest.raises(GlossaryError, match=r"^evaluate\.glossary: .*nothing\.tsv: no such glossary file$"):
        score_test_split(translator, test, EvaluateParams(glossary=str(tmp_path / "nothing.tsv")))


def test_the_hand_written_set_holds_the_terms_its_author_listed():
    # docs/data/: sentences and their terms written apart from this code; the matcher must find exactly those.
    data = Path(__file__).resolve().parent.parent / "docs" / "data"
    glossary = Glossary.load(data / "glossary.tsv")
    for line in (data / "terms-dev.tsv").read_text(encoding="utf-8").splitlines():
        english, _, listed = line.split("\t")
        assert [m.english.lower() for m in glossary.matches(english)] == listed.lower().split(" | "), english

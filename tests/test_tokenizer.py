"""The text pipeline: subword (SentencePiece) and word tokenizers, their payloads and files, and the
word vocabulary."""

import base64
import io
import json

import pandas as pd
import pytest
import torch
from conftest import TINY_VOCAB, text_of
from corpus_factory import NAMES, pairs

from attention_lab.config import ConfigError, from_mapping, to_dict
from attention_lab.data.cleaning import clean, normalize_words
from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID, RESERVED, UNK, UNK_ID
from attention_lab.data.word_vocab import Vocab
from attention_lab.data.splits import split_by_source
from attention_lab.data.tokenizer import SubwordParams, Tokenizer, TokenizerParams, WordCodec, WordParams
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.tokenizer_training import build_tokenizer, train_subword
from attention_lab.errors import UserError

torch.set_num_threads(1)

UNSEEN = [
    "Kowalski bought 17 kumquats in Reykjavík last Thursday.",
    "Zoë paid 3,50 € for a crème brûlée at 08:45 in Łódź!",
    "ÇA COÛTE 1999 ¥ À KØBENHAVN ?",
    "Señor Müller's naïve façade — «Œuvre» (über-cool) ; 100 % sûr.",
]


def corpus_splits(seed: int = 0) -> dict[str, pd.DataFrame]:
    return split_by_source(pairs(), 0.1, 0.1, seed=seed)


SPLITS = corpus_splits()
ALL_SENTENCES = [s for pair in pairs() for s in pair]


def subword(model: str = "bpe", joint: bool = True, size: int = 450) -> Tokenizer:
    subword = {"size": size, "model": model, "joint": joint}
    params = from_mapping(TokenizerParams, {"kind": "subword", "subword": subword}, "train_tokenizer")
    return build_tokenizer(SPLITS, params)[0]


@pytest.fixture(scope="module", params=[("bpe", True), ("unigram", True), ("bpe", False), ("unigram", False)],
                ids=lambda p: f"{p[0]}-{'joint' if p[1] else 'separate'}")
def subword_tokenizer(request) -> Tokenizer:
    return subword(*request.param)


@pytest.fixture(scope="module")
def tiny() -> Tokenizer:
    """The tokenizer the trained-model fixture uses."""
    return build_tokenizer(SPLITS, from_mapping(TokenizerParams, TINY_VOCAB, "train_tokenizer"))[0]


@pytest.fixture(scope="module")
def words() -> Tokenizer:
    return build_tokenizer(SPLITS, TokenizerParams(kind="word"))[0]


def long_sentence(n_words: int) -> str:
    vocabulary = "she takes the car and we like the book and he sees the dog and you want the bread".split()
    text = " ".join(vocabulary[i % len(vocabulary)] for i in range(n_words))
    return text[0].upper() + text[1:] + "."


# -- subword mode ------------------------------------------------------------------------------------

def test_subword_round_trip_of_every_corpus_sentence(subword_tokenizer):
    for codec in {id(c): c for c in (subword_tokenizer.src, subword_tokenizer.tgt)}.values():
        encoded = codec.encode_all(ALL_SENTENCES)
        for text, ids in zip(ALL_SENTENCES, encoded):
            assert ids[-1] == EOS_ID and EOS_ID not in ids[:-1] and UNK_ID not in ids
            assert PAD_ID not in ids and BOS_ID not in ids
            assert text_of(codec, ids) == clean(text)
            assert codec.encode(text) == ids  # one at a time as in a batch


@pytest.mark.parametrize("text", UNSEEN)
def test_subword_round_trip_of_unseen_text_thanks_to_byte_fallback(subword_tokenizer, text):
    for codec in (subword_tokenizer.src, subword_tokenizer.tgt):
        ids = codec.encode(text)
        assert UNK_ID not in ids, codec.id_pieces(ids)
        assert text_of(codec, ids) == clean(text)
        assert codec.join(codec.pieces(text)) == clean(text)


def test_subword_round_trip_of_untidy_spacing(tiny):
    text = "  Kowalski\u202fsees\xa0 the   car\u2019s door !  "
    assert text_of(tiny.src, tiny.src.encode(text)) == clean(text) == "Kowalski sees the car's door !"


@pytest.mark.parametrize("text", ["Je pense que je vais rentrer me coucher…", "Le CO₂ est un gaz.", "Le 1º mai."])
def test_subword_round_trip_of_characters_the_real_corpus_has(tiny, text):
    # Lines of d2l's fra.txt: SentencePiece's default NFKC normalisation would rewrite these
    # (… -> ..., ₂ -> 2, º -> o), so the translation could never match such a reference.
    assert text_of(tiny.tgt, tiny.tgt.encode(text)) == clean(text)


def test_subword_join_writes_one_space_between_words(tiny):
    # A bare `▁` (before digits) then a piece that starts a word: a model wrote `5`, `▁`, `▁euros`.
    assert "▁" in map(tiny.tgt.piece, range(len(tiny.tgt)))
    assert tiny.tgt.join(["▁la", "▁", "▁voiture", "."]) == "la voiture."


def test_subword_never_truncates(tiny):
    text = long_sentence(60)
    assert len(text.split()) == 60
    ids = tiny.src.encode(text)
    pieces = tiny.src.pieces(text)
    assert len(pieces) >= 60 and len(ids) == len(pieces) + 1 and ids[-1] == EOS_ID
    assert tiny.src.id_pieces(ids) == pieces
    assert text_of(tiny.src, ids) == text
    much_longer = " ".join([text] * 10)  # 600 words
    assert text_of(tiny.src, tiny.src.encode(much_longer)) == much_longer


def test_decode_stops_at_eos_and_skips_pad_and_bos(tiny):
    ids = tiny.tgt.encode("Elle prend la voiture.")
    assert text_of(tiny.tgt, [BOS_ID] + ids[:2] + [PAD_ID] + ids[2:] + [PAD_ID] + ids) == "Elle prend la voiture."


def test_reserved_ids_are_the_same_in_both_modes(subword_tokenizer, words):
    assert (PAD_ID, BOS_ID, EOS_ID, UNK_ID) == (0, 1, 2, 3) and RESERVED == ("<pad>", "<bos>", "<eos>", "<unk>")
    for codec in (subword_tokenizer.src, subword_tokenizer.tgt):
        assert [codec.processor.id_to_piece(i) for i in range(4)] == list(RESERVED)
        assert (codec.processor.pad_id(), codec.processor.bos_id(), codec.processor.eos_id(),
                codec.processor.unk_id()) == (PAD_ID, BOS_ID, EOS_ID, UNK_ID)
        assert codec.id_pieces([5, EOS_ID, 6]) == [codec.processor.id_to_piece(5)]
    for codec in (words.src, words.tgt):
        assert codec.vocab.tokens[:4] == RESERVED
        assert codec.encode("zzzqx")[-2:] == [UNK_ID, EOS_ID]


def test_joint_and_separate_models(tiny):
    assert tiny.joint and tiny.src is tiny.tgt
    separate = subword("bpe", joint=False, size=300)
    assert not separate.joint and separate.src is not separate.tgt
    # a joint model reads a name the same way on both sides (so it can be copied)
    for name in NAMES:
        assert tiny.src.encode(name) == tiny.tgt.encode(name)
    # separate models are trained on one language each
    english_only = train_subword(list(SPLITS["train"]["src"]), SubwordParams(size=300, model="bpe"))
    assert separate.src.proto == english_only.proto
    french_only = train_subword(list(SPLITS["train"]["tgt"]), SubwordParams(size=300, model="bpe"))
    assert separate.tgt.proto == french_only.proto
    assert tiny.payload()["tgt"] is None and separate.payload()["tgt"]["kind"] == "subword"


def test_subword_training_uses_the_train_split_only():
    # a word repeated all over the valid and test splits becomes a piece only if they are read
    frame = pd.DataFrame({"src": ["Xylophones sing."] * 60, "tgt": ["Les xylophones chantent."] * 60})
    params = from_mapping(TokenizerParams, TINY_VOCAB, "train_tokenizer")
    tokenizer, _ = build_tokenizer({"train": SPLITS["train"], "valid": frame, "test": frame}, params)
    leaked, _ = build_tokenizer({"train": pd.concat([SPLITS["train"], frame]), "valid": frame, "test": frame},
                                params)
    assert "▁Xylophones" in leaked.src.pieces("Xylophones")  # the check below can fail
    assert "▁Xylophones" not in tokenizer.src.pieces("Xylophones")
    assert text_of(tokenizer.src, tokenizer.src.encode("Xylophones sing.")) == "Xylophones sing."


def test_the_tokenizer_keeps_the_words_of_the_train_split_only_and_one_built_before_them_has_none():
    frame = pd.DataFrame({"src": ["Xylophones sing."], "tgt": ["Les xylophones chantent."]})
    tokenizer, _ = build_tokenizer({"train": SPLITS["train"], "valid": frame, "test": frame},
                                   from_mapping(TokenizerParams, TINY_VOCAB, "train_tokenizer"))
    assert tokenizer.words == CorpusWords.of(SPLITS["train"]["src"], SPLITS["train"]["tgt"])
    assert "xylophones" not in tokenizer.words.source | tokenizer.words.target and tokenizer.words.target
    before = {key: value for key, value in tokenizer.payload().items() if key != "words"}
    assert Tokenizer.from_payload(before).words is None


def test_corpus_words_are_runs_of_letters_in_small_letters():
    words = CorpusWords.of(["Tom's 3 cats, Jean-Luc!"], ["Aujourd'hui, Élodie a 2 chats."])
    assert words.source == {"tom", "s", "cats", "jean-luc", "jean", "luc"}  # a hyphenated word whole and its parts
    assert words.target == {"aujourd", "hui", "élodie", "a", "chats"}
    assert CorpusWords.from_payload(words.payload()) == words


def test_a_pair_the_corpus_capitalises_inside_sentences_more_often_than_not_is_a_phrase():
    words = CorpusWords.of(["I live in New York.", "New York is big.", "Is it in New York?", "A new york.",
                            "We saw the White House.", "The white house is here.", "My white house.",
                            "New Cars are here.", "Tom said I Am here.", "We ate Big Apples.", "We ate big apples."],
                           [])
    # `new york`: 2 of 3 inside a sentence; `white house`: 1 of 3; `big apples` half: not more often than not;
    # `new cars` only first; `I Am`: `I` says nothing.
    assert words.phrases == {"new york"}
    assert CorpusWords.from_payload(words.payload()) == words
    older = {key: value for key, value in words.payload().items() if key != "phrases"}  # a model file before them
    assert CorpusWords.from_payload(older).phrases == frozenset()


def test_a_word_s_french_forms_are_the_words_its_pairs_write_with_it():
    sources = ["I live in Germany.", "We love Germany.", "Germany is big.", "I met Tom.", "I met Tom in Paris.",
               "He saw Paris.", "She is here.", "I love summer.", "Summer is here.", "It has been long.",
               "We have been here.", "You have been kind.", "They have been ill.", "He has been out.",
               "She has been in.", "It has been hot.", "Holland is the Netherlands.", "The Netherlands are flat."]
    targets = ["Je vis en Allemagne.", "Nous aimons l'Allemagne.", "L'Allemagne est grande.", "J'ai rencontré Tom.",
               "J'ai rencontré Tom à Paris.", "Il a vu Paris.", "Elle est ici.", "J'adore l'été.", "L'été est là.",
               "Ça a été long.", "Nous avons été ici.", "Tu as été gentil.", "Ils ont été malades.",
               "Il a été dehors.", "Elle a été dedans.", "Il a fait chaud.", "La Hollande, ce sont les Pays-Bas.",
               "Les Pays-Bas sont plats."]
    words = CorpusWords.of(sources, targets)
    assert "allemagne" in words.rendered["germany"] and "paris" in words.rendered["paris"]
    assert "vis" not in words.rendered["germany"]  # written with it once: no form
    assert "rencontré" in words.rendered["met"]  # not names only
    assert "été" in words.rendered["summer"]  # in every pair of `summer`, though in more of `been`
    assert "pays-bas" in words.rendered["netherlands"]  # a hyphenated word whole
    assert "été" not in words.rendered.get("it", ())  # in a few of its many pairs
    assert words.renders["allemagne"] == {"germany"}


def test_a_french_word_in_most_pairs_of_an_english_word_renders_it_unless_it_is_in_nearly_every_pair():
    # `été` is in both pairs of `summer` and in 8 of `been`: Dice's 0.33; `zut` is in both of `gloop` and 40 others
    other = [f"q{a}{b}" for a in "abcde" for b in "abcdefgh"]  # 40 words, each pair its own (pairs count once)
    sources = ["summer one", "summer two", "gloop one", "gloop two", *[f"been {w}" for w in other[:8]],
               *[f"other {w}" for w in other]]
    targets = ["été un", "été deux", "zut un", "zut deux", *[f"été {w}" for w in other[:8]],
               *[f"zut {w}" for w in other]]
    words = CorpusWords.of(sources, targets)
    assert "été" in words.rendered["summer"] and "zut" not in words.rendered.get("gloop", ())
    assert CorpusWords.from_payload(words.payload()) == words
    older = {key: value for key, value in words.payload().items() if key != "french"}  # a model file before them
    assert CorpusWords.from_payload(older).rendered == {}


def sample_texts() -> list[str]:
    return ALL_SENTENCES[:40] + UNSEEN + [long_sentence(45)]


@pytest.mark.parametrize("make", [lambda: subword("bpe", True), lambda: subword("unigram", False, 300),
                                  lambda: build_tokenizer(SPLITS, TokenizerParams(kind="word"))[0]],
                         ids=["subword-joint", "subword-separate", "word"])
def test_payload_and_file_round_trips_give_identical_ids(tmp_path, make):
    tokenizer = make()
    payload = tokenizer.payload()
    buffer = io.BytesIO()
    torch.save(payload, buffer)  # plain lists, dicts and numbers: accepted by weights_only loading
    buffer.seek(0)
    from_torch = Tokenizer.from_payload(torch.load(buffer, weights_only=True))
    tokenizer.save(tmp_path / "tokenizer.json")
    json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    from_file = Tokenizer.load(tmp_path / "tokenizer.json")
    texts = sample_texts()
    for other in (Tokenizer.from_payload(payload), from_torch, from_file):
        assert other.joint == tokenizer.joint and other.params == tokenizer.params and other.words == tokenizer.words
        assert len(other.src) == len(tokenizer.src) and len(other.tgt) == len(tokenizer.tgt)
        for side in ("src", "tgt"):
            mine, theirs = getattr(tokenizer, side), getattr(other, side)
            ids = mine.encode_all(texts)
            assert theirs.encode_all(texts) == ids
            assert [text_of(theirs, i) for i in ids] == [text_of(mine, i) for i in ids]


def test_a_too_small_subword_size_is_a_config_error_naming_the_key():
    with pytest.raises(ConfigError, match=r"^train_tokenizer\.subword\.size: 40 is below") as error:
        subword("bpe", True, size=40)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("content", [
    b"",
    b"not json at all",
    b"\xff\xfe binary",
    b"[1, 2, 3]",
    b'{"format": "something/else"}',
    b'{"format": "attention-lab/tokenizer"}',
    json.dumps({"format": "attention-lab/tokenizer", "params": {"kind": "word", "colour": 1},
                "src": {"kind": "word", "tokens": list(RESERVED), "lowercase": True}, "tgt": None}).encode(),
    json.dumps({"format": "attention-lab/tokenizer", "params": {"kind": "word"},
                "src": {"kind": "word", "tokens": ["a", "b"], "lowercase": True}, "tgt": None}).encode(),
    json.dumps({"format": "attention-lab/tokenizer", "params": {"kind": "subword"},
                "src": {"kind": "subword", "proto": "!!! not base64"}, "tgt": None}).encode(),
    json.dumps({"format": "attention-lab/tokenizer", "params": {"kind": "subword"},
                "src": {"kind": "subword", "proto": base64.b64encode(b"damaged model bytes").decode()},
                "tgt": None}).encode(),
], ids=["empty", "text", "binary", "list", "other-format", "no-fields", "bad-params", "bad-vocab", "bad-base64",
        "damaged-proto"])
def test_a_corrupt_tokenizer_file_is_a_one_line_user_error_naming_it(tmp_path, content):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(content)
    with pytest.raises(UserError) as error:
        Tokenizer.load(path)
    message = str(error.value)
    assert message.startswith(f"{path}: not a tokenizer file") and "\n" not in message, message


def test_a_missing_tokenizer_file(tmp_path):
    with pytest.raises(UserError, match=r"none\.json: no such tokenizer file"):
        Tokenizer.load(tmp_path / "none.json")


# -- word mode ---------------------------------------------------------------------------------------

def test_word_mode_follows_d2l(words):
    codec = words.src
    assert not words.joint
    assert codec.pieces("Go.") == ["go", "."] and codec.pieces("He's  calm !") == ["he's", "calm", "!"]
    assert codec.surface("Kowalski sees the car.") == ["Kowalski", "sees", "the", "car", "."]
    text = "She sees the car."
    assert codec.encode(text) == codec.vocab.lookup(normalize_words(text).split()) + [EOS_ID]
    assert UNK_ID not in codec.encode(text)
    assert text_of(codec, codec.encode(text)) == "She sees the car."
    assert text_of(words.tgt, words.tgt.encode("Elle voit la voiture.")) == "Elle voit la voiture."


def test_word_mode_reads_unseen_words_as_unk(words):
    ids = words.src.encode("Zebulon sees the 17 kumquats.")
    assert [i == UNK_ID for i in ids[:-1]] == [True, False, False, True, True, False]
    assert words.src.id_pieces(ids) == [UNK, "sees", "the", UNK, UNK, "."]
    assert words.src.emits_unk and words.tgt.emits_unk
    assert not subword().tgt.emits_unk


def test_word_mode_never_truncates(words):
    text = long_sentence(60)
    ids = words.src.encode(text)
    assert len(ids) == 60 + 2 and ids[-1] == EOS_ID  # 60 words, the full stop, <eos>
    assert text_of(words.src, ids) == text


def test_word_vocabulary_is_built_from_the_train_split_only():
    frame = lambda src, tgt: pd.DataFrame({"src": src, "tgt": tgt})  # noqa: E731
    splits = {"train": frame(["A b.", "a c."], ["X y.", "x z."]), "valid": frame(["Q a."], ["X w."]),
              "test": frame(["a a."], ["x x."])}
    tokenizer, report = build_tokenizer(splits, TokenizerParams(kind="word", word=WordParams(min_freq=1)))
    assert "q" not in tokenizer.src.vocab.index and "w" not in tokenizer.tgt.vocab.index
    assert set(tokenizer.src.vocab.tokens[4:]) == {"a", "b", "c", "."}
    assert report["kind"] == "word" and report["joint"] is False
    assert report["src"]["size"] == 8 and report["src"]["unk_rate_valid"] == pytest.approx(1 / 3, abs=1e-4)
    assert report["src"]["unk_rate_test"] == 0.0 and report["tgt"]["unk_rate_valid"] == pytest.approx(1 / 3, abs=1e-4)
    assert report["src"]["tokens_per_sentence"] == 3 and report["src"]["max_tokens"] == 3
    kept_case, _ = build_tokenizer(splits, TokenizerParams(kind="word", word=WordParams(min_freq=1, lowercase=False)))
    assert {"A", "a"} <= set(kept_case.src.vocab.tokens)


def test_subword_report(tiny):
    _, report = build_tokenizer(SPLITS, from_mapping(TokenizerParams, TINY_VOCAB, "train_tokenizer"))
    assert report["kind"] == "subword" and report["joint"] is True
    counts = [len(tiny.src.encode(s)) - 1 for s in SPLITS["train"]["src"]]
    assert report["src"]["size"] == len(tiny.src) <= 450
    assert report["src"]["tokens_per_sentence"] == pytest.approx(sum(counts) / len(counts), abs=1e-3)
    assert report["src"]["max_tokens"] == max(counts)
    assert report["src"]["unk_rate_valid"] == report["tgt"]["unk_rate_test"] == 0.0


SENTENCES = [["b", "a", "c"], ["a", "b"], ["a", "d", "<eos>"], ["e"]]  # a:3 b:2 c:1 d:1 e:1


def test_vocab_reserved_ids_and_order():
    vocab = Vocab.build(SENTENCES, min_freq=1, max_size=None)
    assert vocab.tokens[:4] == RESERVED
    assert vocab.tokens[4:] == ("a", "b", "c", "d", "e")  # by count, then token; "<eos>" not counted


def test_vocab_min_freq_and_max_size():
    assert Vocab.build(SENTENCES, min_freq=2, max_size=None).tokens[4:] == ("a", "b")
    assert Vocab.build(SENTENCES, min_freq=1, max_size=6).tokens[4:] == ("a", "b")  # reserved tokens included
    assert Vocab.build(SENTENCES, min_freq=4, max_size=None).tokens == RESERVED
    ties = Vocab.build([["z", "y", "x"], ["y", "z"]], min_freq=1, max_size=None)
    assert ties.tokens[4:] == ("y", "z", "x")  # equal counts in token order


def test_vocab_lookup_and_id_pieces():
    vocab = Vocab.build(SENTENCES, min_freq=2, max_size=None)
    codec = WordCodec(vocab, lowercase=True)
    assert vocab.lookup(["a", "zzz", "b"]) == [4, UNK_ID, 5]
    assert codec.id_pieces(vocab.lookup(["b", "a"])) == ["b", "a"]
    assert codec.id_pieces([BOS_ID, 4, PAD_ID, 5, EOS_ID, 4]) == ["a", "b"]  # stops at <eos>
    assert codec.id_pieces([UNK_ID]) == [UNK]


def test_vocab_checks_its_tokens():
    with pytest.raises(ValueError, match="must start with"):
        Vocab(("a", "b"))
    with pytest.raises(ValueError, match="duplicate"):
        Vocab(RESERVED + ("a", "a"))


def test_word_params_are_validated():
    with pytest.raises(ConfigError, match=r"train_tokenizer\.word\.min_freq: must be >= 1"):
        from_mapping(TokenizerParams, {"kind": "word", "word": {"min_freq": 0}}, "train_tokenizer")
    with pytest.raises(ConfigError, match=r"train_tokenizer\.kind: expected one of"):
        from_mapping(TokenizerParams, {"kind": "chars"}, "train_tokenizer")
    params = from_mapping(TokenizerParams, to_dict(TokenizerParams(kind="word")), "train_tokenizer")
    assert params == TokenizerParams(kind="word")

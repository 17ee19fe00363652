"""Any casing: an all-capitals, Title Case or lower-case line is translated as its sentence-cased form
and given back in its own casing; every comparison is with the same model's translation of the
expected input."""

import numpy as np
import pytest
import torch

from attention_lab.data.cleaning import capitalized
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.tokenizer import Codec
from attention_lab.text.casing import Truecase, casing, sentence_cased, word_cased
from attention_lab.text.record import Draft, Sentence
from attention_lab.text.steps import read_lines
from attention_lab.inference.translator import Translator

torch.set_num_threads(1)

PLAIN = "I see the cat."


@pytest.fixture(scope="module")
def translator(trained_model) -> Translator:
    return Translator.load(trained_model, "cpu")


def recased(text: str, case: str, kept: tuple[str, ...] = ()) -> str:
    """`text` as the Truecase step writes a translation of a sentence it read in the casing `case`."""
    return Truecase().write(Draft([], np.zeros((0, 0)), [], text, kept), Sentence(0, "", {"truecase": case}), None).text


@pytest.mark.parametrize("sentence, expected", [
    ("I LOVE YOU.", "upper"), ("WAIT!", "upper"), ("I HAVE 2 CATS.", "upper"),
    ("I Have To Finish This First.", "title"), ("« Where Is The Station? »", "title"),
    ("I Love You.", "title"), ("I Love You Too.", "title"),  # at WORDS_FOR_TITLE words, and one past it
    ("I see the cat.", "as written"), ("I.", "as written"), ("OK", "upper"), ("Tom Jackson.", "as written"),
    ("I like NASA.", "as written"), ("", "as written"), ("123.", "as written"),
    ("i see the cat.", "lower"), ("« where is it? »", "lower"), ("iPhone is here.", "lower"), ("i.", "as written"),
    ("42 cats.", "as written"), ("« 3 cats »", "as written"),
    ("Visit Our Site At www.example.com Today.", "title"), ("SEND IT TO tom@example.com NOW.", "upper"),
    ("www.Example.com is down.", "lower"), ("I Like example.com.", "as written"),
])
def test_casing_tells_upper_title_and_lower_case_from_a_sentence(sentence, expected):
    assert casing(sentence) == expected


def test_sentence_casing_keeps_i_and_the_names_the_model_knows_capitalised():
    def pieces(word):  # a vocabulary that knows "Tom", "Paris" and lowercase words, but not "tom" or "paris"
        known = word.strip(".?") in ("Tom", "Paris") or word.islower() and word.strip(".?") not in ("tom", "paris")
        return [word] if known else list(word)

    assert sentence_cased("I LOVE YOU.", pieces) == "I love you."
    assert sentence_cased("TOM AND I'M IN PARIS.", pieces) == "Tom and I'm in Paris."
    assert sentence_cased("The Cat Is Here.", pieces) == "The cat is here."
    assert sentence_cased("« WHERE IS IT? »", pieces) == "« Where is it? »"
    assert recased("Je t'aime.", "upper") == "JE T'AIME." and recased("Je t'aime.", "title") == "Je t'aime."
    # What Protect carried as typed stays so (an address, a symbol) in a translation written in capitals.
    assert recased("Va sur www.example.com, pas example.com.", "upper", ("www.example.com",)) == \
        "VA SUR www.example.com, PAS EXAMPLE.COM."
    # A lower-case sentence's own capitals are kept: its names, a word as `iPhone`, even first.
    assert sentence_cased("tom and i'm in paris.", pieces, keep_capitals=True) == "Tom and I'm in Paris."
    assert sentence_cased("i met Anna in paris.", pieces, keep_capitals=True) == "I met Anna in Paris."
    assert sentence_cased("iPhone is here.", pieces, keep_capitals=True) == "iPhone is here."
    assert sentence_cased("« iPhone is here. »", pieces, keep_capitals=True) == "« iPhone is here. »"
    assert sentence_cased("« tom is here. »", pieces, keep_capitals=True) == "« Tom is here. »"
    # ... and after an opening quote or bracket, where the quote is against the word (text/quotes.py).
    assert sentence_cased('TOM SAID, «I\'M HERE» ("I AM").', pieces) == 'Tom said, «I\'m here» ("I am").'
    assert sentence_cased("he said, «i am here».", pieces, keep_capitals=True) == "He said, «I am here»."
    assert sentence_cased("I met Anna.", pieces) == "I met anna." and recased("J'ai.", "lower") == "J'ai."
    # A title and the name after it are capitalised; `miss` is also a verb.
    assert sentence_cased("MR. SMITH AND DR JONES ARE HERE.", pieces) == "Mr. Smith and Dr Jones are here."
    assert sentence_cased("THE DR. SAID NO.", pieces) == "The Dr. said no."  # a title after `the` is a noun
    assert sentence_cased("i met mrs. brown.", pieces, keep_capitals=True) == "I met Mrs. Brown."
    assert sentence_cased("I MISS YOU, MS. LEE.", pieces) == "I miss you, Ms. Lee."
    # ... but `and` or `or` after a title is no name (a couple, or a choice of titles).
    assert sentence_cased("MR. AND MRS. SMITH OR MR & MRS JONES.", pieces) == "Mr. and Mrs. Smith or Mr & Mrs Jones."
    # An address is carried as typed, in any casing (text/symbols.py).
    assert sentence_cased("WRITE TO TOM@EXAMPLE.COM OR SEE WWW.EXAMPLE.COM/ReadMe.", pieces) == \
        "Write to TOM@EXAMPLE.COM or see WWW.EXAMPLE.COM/ReadMe."
    assert sentence_cased("Www.Example.Com Is Down.", pieces) == "Www.Example.Com is down."
    # Two words the corpus writes capitalised (`CorpusWords.phrases`), in a run of them too, not across a comma.
    phrases = CorpusWords(frozenset(), frozenset(), frozenset({"new york", "world war", "second world"}))
    assert sentence_cased("I LOVE NEW YORK.", pieces, words=phrases) == "I love New York."
    assert sentence_cased("i love new york", pieces, True, phrases) == "I love New York"
    assert sentence_cased("THE SECOND WORLD WAR ENDED.", pieces, words=phrases) == "The Second World War ended."
    assert sentence_cased("I SAW NEW, YORK WAS OLD.", pieces, words=phrases) == "I saw new, york was old."


def test_a_line_in_capitals_is_read_with_the_corpus_phrases_capitalised():
    words = CorpusWords(frozenset("i love new york".split()), frozenset(), frozenset({"new york"}))
    assert [s.text for s in read_lines(["I LOVE NEW YORK."], Letters(), words=words)] == ["I love New York."]
    assert [s.text for s in read_lines(["I LOVE NEW YORK."], Letters())] == ["I love new york."]


def test_an_acronym_the_model_knows_in_capitals_stays_in_capitals():
    def pieces(word):  # knows "OK" and "TV" in capitals, "us" and "no" in small letters
        return [word] if word.strip(".!(") in ("OK", "TV", "us", "no", "i", "we", "watch", "love", "my") else list(word)

    assert sentence_cased("I WATCH TV.", pieces) == "I watch TV." and sentence_cased("(OK!", pieces) == "(OK!"
    assert sentence_cased("WE LOVE US.", pieces) == "We love us." and sentence_cased("NO.", pieces) == "No."
    assert sentence_cased("I WATCH Tv.", pieces) == "I watch tv."  # not typed in capitals


def test_a_line_of_acronyms_alone_is_read_and_given_back_as_written():
    class Acronyms(Codec):
        def pieces(self, text):
            return [piece for word in text.split()
                    for piece in ([word] if word.strip(".,!") in ("OK", "FBI", "look") else list(word))]

        def reads(self, char):
            return True

    [ok, shouted] = read_lines(["OK.", "OK, FBI, LOOK!"], Acronyms())
    assert (ok.text, ok.record["truecase"]) == ("OK.", "as written") and shouted.record["truecase"] == "upper"


class Letters(Codec):
    """A piece a letter: no casing is read in fewer pieces than another."""

    def pieces(self, text):
        return list(text.replace(" ", ""))

    def reads(self, char):
        return True


# A corpus that writes `un`, `who`, `us`, `it` as words, `C` capitalised, and `new` capitalised at times (`New York`).
WORDS = CorpusWords(frozenset("talks with un who us it resume today i'm here the new car is our team a statement "
                              "from let go so that works tell her we came max load speed limit walk top keep below c"
                              .split()),
                    frozenset(), cased=frozenset({"Tom", "C"}), capitalised=frozenset({"tom", "c", "new"}))


@pytest.mark.parametrize("acronym", ["UN", "WHO", "US", "IT", "NASA", "U.S."])
def test_a_word_typed_in_capitals_in_a_title_case_line_is_an_acronym_kept_as_typed(acronym):
    line = f"Talks With {acronym} Resume Today"
    [title, shouted] = read_lines([line, line.upper()], Letters(), words=WORDS, placeholders=False)
    assert title.text.split()[2] == acronym  # though the corpus writes `un`, `who` small
    assert shouted.text.split()[2] == acronym.lower()  # in a line all in capitals, its capitals say nothing
    # `I'M` is `I`; a word the corpus capitalises at times is read small: kept, the model read `a New car` as a name.
    assert [s.text for s in read_lines(["I'M Here With The New Car"], Letters(), words=WORDS)] == \
        ["I'm here with the new car."]


@pytest.mark.parametrize("word", ["NASA", "FIFA", "BBC", "TOM", "THE", "UN", "ZORBLAX"])
@pytest.mark.parametrize("rest", ["TALKS RESUME", "Talks Resume"])  # capitals, Title Case
def test_a_lines_first_word_is_read_as_further_in_the_line_but_for_its_first_capital(word, rest):
    first, later = read_lines([f"{word} {rest}", f"{rest.split()[0]} {word} {rest}"], Letters(), words=WORDS,
                              placeholders=False)
    assert first.text.split()[0] == capitalized(later.text.split()[1])  # `Nasa` as `nasa`, `BBC`, `Tom`, `The`


@pytest.mark.parametrize("line, after", [
    ("SAYS THE US.", "US."), ("OUR IT TEAM IS HERE.", "IT"), ("A STATEMENT FROM THE WHO.", "WHO."),
    ("THE U.S. TEAM", "U.S."),
    ("LET US GO.", "us"), ("SO THAT IT WORKS.", "it"), ("TELL HER WE CAME.", "we"),  # no article or possessive before
])
def test_in_capitals_a_pronoun_after_an_article_or_a_possessive_is_an_acronym_kept_as_typed(line, after):
    words = line.split()
    k = next(k for k, word in enumerate(words) if word.strip(".").replace(".", "").lower() in ("us", "it", "who", "we"))
    assert sentence_cased(line, Letters().pieces, words=WORDS).split()[k] == after


@pytest.mark.parametrize("line, read", [
    ("MAX LOAD 500 KG", "500 kg"), ("SPEED LIMIT 30 MPH.", "30 mph."), ("Top Speed 60 Km/H", "60 km/h"),
    ("WALK 5KM TODAY", "5km"), ("WALK 2.5 KM TODAY", "2.5 km"),
    ("KEEP BELOW 25 C", "25 C"),  # a letter alone: as the corpus writes it
    ("THE KG IS HERE", "KG"),  # no number before it: an acronym the corpus lacks, as typed
])
def test_a_unit_typed_in_capitals_after_a_number_is_read_in_small_letters_as_the_reading_names_it(line, read):
    title = casing(line) == "title"
    assert read in sentence_cased(line, Letters().pieces, words=WORDS, title=title)


@pytest.mark.parametrize("opener", ["«", "(", '"', "“"])
def test_a_word_after_an_opener_is_cased_as_the_word_alone(opener):
    def pieces(word):  # as SentencePiece did: after an opener a small word is spelt letter by letter, `No` is one piece
        core = word.lstrip(opener)
        if core != word:
            return [opener] + ([core] if core[:1].isupper() else list(core))
        return [core] if core in ("no", "cat") or core[:1].isupper() else list(core)

    for word in ("no", "cat", "tom", "i", "i'm", "NO"):
        assert word_cased(opener + word, pieces) == opener + word_cased(word, pieces)


# The tiny corpus has no capital L: in `WE LIKE` it is no character to carry, but read as `l`.
@pytest.mark.parametrize("sentence", [PLAIN, "We like the book."])
def test_an_all_caps_line_is_the_translation_of_its_sentence_cased_form_upper_cased(translator, sentence):
    [plain] = translator.translate([sentence])
    [upper] = translator.translate([sentence.upper()])
    assert upper.src_pieces == plain.src_pieces and upper.carried == []  # the model read the sentence-cased form
    assert upper.text == plain.text.upper() and upper.source == sentence.upper()


@pytest.mark.parametrize("address", ["tom@example.com", "www.Example.com/ReadMe"])
def test_an_address_in_a_line_of_capitals_or_title_case_goes_back_as_typed(translator, address):
    [plain] = translator.translate([f"I see the cat {address.lower()}."])
    for line in (f"I SEE THE CAT {address}.", f"I See The Cat {address}."):
        [typed] = translator.translate([line])
        assert typed.carried == [address] and typed.src_pieces == plain.src_pieces
        expected = plain.text.replace(address.lower(), "")
        assert typed.text.replace(address, "") == (expected.upper() if "SEE" in line else expected)


@pytest.mark.parametrize("line", ["I See The Cat.", "i see the cat."])
def test_a_title_or_lower_case_line_is_the_translation_of_its_sentence_cased_form(translator, line):
    [plain] = translator.translate([PLAIN])
    [cased] = translator.translate([line])
    assert cased.src_pieces == plain.src_pieces and cased.text == plain.text and cased.source == line


def test_each_sentence_of_a_line_keeps_its_own_casing(translator):
    [plain] = translator.translate([PLAIN])
    [go] = translator.translate(["We like the book."])
    [line] = translator.translate([f"{PLAIN.upper()} We like the book."])
    assert line.text == f"{plain.text.upper()} {go.text}"

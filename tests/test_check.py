"""The check after writing: a number whose value the French lacks or adds (digits in either language's form,
number words, a scale, a fraction, digit groups typed apart), a name (held by the reading, or one the line and the
corpus's words tell: capitalised, in capitals, a code, a word the corpus writes small that the line marks as a name,
an acronym that is a word) or carried text the French lacks, a placeholder left, a unit dropped; silent where the
French keeps them all, as typed or in a French form."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import linear_work

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.inference.check import Expected, Findings, check
from attention_lab.inference.check_units import FRENCH
from attention_lab.inference.number_values import ENGLISH_WORDS, VAGUE, numbers
from attention_lab.text.amounts import CURRENCIES
from attention_lab.text.number_forms import french_form

WORDS = CorpusWords(frozenset({"tom", "boston", "see", "i", "london"}), frozenset({"tom", "boston", "tomate", "tomates"}))
# With the corpus's casing counts (a model file written since they are kept): `Tom`, `FBI` and `Christmas` are
# capitalised inside a sentence more often than not, `street`, `golden` and `central` at times, the other words the
# English knows nearly never (`bill`, `may`, `mayor`, `who`); `eu` and `un` are French words, `onu` and `japon` too.
COUNTED = CorpusWords(
    frozenset("tom boston japan kenji unesco fbi london dr street ok tv very the is here i we ate at in greetings from "
              "sales rose room flight late bought an met site shut voted prices include he moved to flew a woman ask "
              "live on oak print it paper not saw and called sent by came bill may grace summer frank golden central "
              "station garage baker mayor winter olympics red cross gave lesson two today tip christmas day gate un "
              "who us best our team hi dinner tell take meet turn you read hr thanks".split()),
    frozenset("tom boston japon kenji unesco fbi dr street ok tv onu eu un états unis tomate londres noël soleil levant"
              .split()),
    phrases=frozenset({"red cross"}),
    cased=frozenset({"Tom", "Boston", "Japan", "Kenji", "UNESCO", "FBI", "London", "Dr", "OK", "TV", "Christmas"}),
    capitalised=frozenset({"tom", "boston", "japan", "kenji", "unesco", "fbi", "london", "dr", "ok", "tv", "street",
                           "christmas", "golden", "central"}), french=(("christmas", "noël"),))

AMOUNT = st.one_of(st.integers(0, 10**9).map(lambda n: f"{n:,}"),
                   st.tuples(st.integers(0, 99_999), st.integers(1, 99)).map(lambda p: f"{p[0]:,}.{p[1]:02d}"))


@settings(max_examples=200, deadline=None)
@given(AMOUNT, st.sampled_from(["{}", "{} dollars", "{}%", "le {}e"]))
def test_a_number_in_french_form_or_as_typed_is_kept(amount, form):
    for written in (french_form(amount), amount):  # `100,000` -> `100 000`, `9.99` -> `9,99`; or left as typed
        assert not check(f"It is {amount}.", f"C'est {form.format(written)}.")


@settings(max_examples=200, deadline=None)
@given(AMOUNT, AMOUNT)
def test_a_number_changed_is_missing_and_added(amount, other):
    value = [reading for number in numbers(amount, "en") for reading in number.readings]
    if value == [reading for number in numbers(other, "en") for reading in number.readings]:
        return
    found = check(f"It is {amount}.", f"C'est {french_form(other)}.")
    assert found.missing_numbers == (amount,) and found.added_numbers == (french_form(other),), found


@pytest.mark.parametrize("source, output", [
    ("We need 100,000 dollars.", "Il nous faut 100 000 dollars."),
    ("It costs $9.99 a month.", "Ça coûte 9,99 dollars par mois."),
    ("The jackpot is $1.2M.", "Le gros lot est de 1,2 million de dollars."),
    ("I have 2 cats.", "J'ai deux chats."),  # the value in words
    ("I have two cats.", "J'ai 2 chats."),
    ("Come at eleven.", "Viens à onze heures."),
    ("We met at 2:15pm.", "Nous nous sommes vus à 14 h 15."),  # the 24-hour clock
    ("We met at 2:15pm.", "Nous nous sommes vus à 2 h 15 de l'après-midi."),
    ("We met at 2:15 p.m.", "Nous nous sommes vus à 2:15 p.m."),
    ("The train leaves at 10.30 sharp.", "Le train part à 10 h 30 précises."),  # a time, as the reading takes it
    ("It was 1990.", "C'était en mille neuf cent quatre-vingt-dix."),
    ("Both came 21 times.", "Les deux sont venus vingt et un fois."),
    ("A man bought a new book once.", "Un homme a acheté un livre neuf une fois."),  # articles, `new`
    ("Prices fell by 50 percent.", "Les prix ont baissé de 50 pour cent."),
    ("It weighs 3 million tons.", "Il pèse 3 millions de tonnes."),
    ("Call +44 20 7946 0958.", "Appelez le +44 20 7946 0958."),
    ("Version 1.2.3 is out.", "La version 1.2.3 est sortie."),
    ("She earns £45k.", "Elle gagne 45 000 livres."),  # a scale after a currency sign
    ("The well is 10m deep.", "Le puits a 10 mètres de profondeur."),  # `m` alone: metres, minutes or millions
    ("My size is 9¾.", "Ma pointure est 9 ¾."),  # a fraction with the number before it
    ("My size is 9¾.", "Ma pointure est 9,75."),
    ("One of them came, both of us, and thousands more.", "L'un d'eux est venu, nous deux, et des milliers."),
])
def test_numbers_kept_in_another_form_are_not_flagged(source, output):
    found = check(source, output)
    assert not found.missing_numbers and not found.added_numbers, found


@pytest.mark.parametrize("source, output, missing, added", [
    ("We need 100,000 dollars.", "Il nous faut 10 000 dollars.", ("100,000",), ("10 000",)),
    ("We need 100,000 dollars.", "Il nous faut 100 dollars.", ("100,000",), ("100",)),  # English: a thousands comma
    ("It costs $9.99/month.", "Ça coûte 99.9 dollars.", ("9.99",), ("99.9",)),
    ("Unemployment peaked at 10.20.", "Le chômage a culminé à 10 h 20.", ("10.20",), ("10", "20")),
    ("It is 20 euros.", "Ça fait 20 euros, vingt-cinq.", (), ("vingt-cinq",)),
    ("Come at 10.", "Viens à onze heures.", ("10",), ("onze",)),
    ("I have 3 cats.", "J'ai des chats.", ("3",), ()),
    ("He is 7.", "Il a sept ans et neuf mois.", (), ("neuf",)),
    ("We met at 3:45pm.", "Nous nous sommes vus à 3 h 45.", ("3",), ("3",)),  # the night's 3 h 45
    ("It raised $1.2M.", "Il a levé 1,2 dollars.", ("1.2M",), ("1,2",)),  # a sure scale is the only reading
    ("The city has 2.3 million people.", "La ville a 2,3 personnes.", ("2.3 million",), ("2,3",)),
    ("My size is 9¾.", "Ma pointure est 9.", ("9¾",), ("9",)),
    ("I need two tickets.", "J'ai besoin de billets.", ("two",), ()),  # a number in words
])
def test_a_number_lost_or_made_up_is_flagged(source, output, missing, added):
    found = check(source, output)
    assert (found.missing_numbers, found.added_numbers) == (missing, added)


GROUPS = st.lists(st.text("0123456789", min_size=4, max_size=4), min_size=2, max_size=4)  # `0161 4960 0000`


@settings(max_examples=100, deadline=None)
@given(GROUPS, st.sampled_from([" ", ".", "", "\u00a0"]), st.data())
def test_digit_groups_typed_apart_are_one_number_kept_only_in_one_run(groups, mark, data):
    typed = " ".join(groups)
    assert not check(f"Call {typed} now.", f"Appelez le {mark.join(groups)}.")
    k = data.draw(st.integers(1, len(groups) - 1))
    broken = f"Appelez le {' '.join(groups[:k])} à {' '.join(groups[k:])}."  # every group, but split by a word
    assert check(f"Call {typed} now.", broken).missing_numbers == (typed,)
    dropped = f"Appelez le {' '.join(groups[:k] + groups[k + 1:])}."  # a group lost: the number, once
    assert check(f"Call {typed} now.", dropped).missing_numbers == (typed,)


@settings(max_examples=50, deadline=None)
@given(st.sampled_from([(w, n) for w, n in ENGLISH_WORDS.items() if 2 <= n < 100 and w not in VAGUE]))
def test_a_number_in_english_words_is_asked_for(pair):
    word, value = pair
    assert not check(f"I have {word} cats.", f"J'ai {value} chats.").missing_numbers
    assert check(f"I have {word} cats.", "J'ai des chats.").missing_numbers == (word,)


@pytest.mark.parametrize("unit", sorted(FRENCH))
def test_a_unit_typed_beside_a_number_is_named_in_the_french(unit):
    source = f"It is {unit}5." if unit in CURRENCIES else f"It is 5 {unit}."
    assert not check(source, f"C'est 5 {unit}.").missing_units
    assert check(source, "C'est 5.").missing_units == (source[6:-1],)


@pytest.mark.parametrize("source, output, missing", [
    ("The box weighs 2.4 kg.", "La boîte pèse 2,4 kilos.", ()),  # a French word for it
    ("It costs £12 and £6.", "Ça coûte 12 ou 6 livres.", ()),  # named once for two amounts
    ("It raised $1.2M.", "Il a levé 1,2 M$.", ()),  # a sign, wherever it stands
    ("It is 35°C and 8% more.", "Il fait 35 degrés et 8 pour cent de plus.", ()),
    ("Drive at 50 km/h.", "Roulez à 50 kilomètres à l'heure.", ()),
    ("It is 10m.", "C'est 10.", ("10m",)),  # `m` alone: metres, minutes or millions, any of them named
    ("It is 10m.", "C'est 10 millions.", ()), ("It is 10m.", "C'est 10 mètres.", ()), ("It is 10m.", "C'est 10 min.", ()),
    ("Simmer it for 1h 30m.", "Laissez mijoter 1 h 30.", ()),  # hours and minutes as French writes them
    ("Simmer it for 1h 30m.", "Laissez mijoter 1 heure et 30 minutes.", ()),
    ("Simmer it for 1h 30m.", "Laissez mijoter 1er 30.", ("1h 30m",)),
    ("It takes 2h 15m.", "Ça prend 2 heures 15 heures.", ("2h 15m",)),  # minutes read as hours
    ("The box weighs 2.4 kg.", "La boîte pèse 2,4.", ("2.4 kg",)),
    ("Pour in 250 ml of milk.", "Versez 250 m'ampli de lait.", ("250 ml",)),  # not inside a word
    ("Tickets cost £12 and £6.", "Les billets coûtent 12 kilos et 6 dollars.", ("£12", "£6")),  # another unit
    ("Wait 5 secs, please.", "Attendez 5, s'il vous plaît.", ("5 secs",)),  # not the `s` of `s'il`
    ("Bring 2 litres of water.", "Portez 2 l d'eau.", ()), ("Bring 2 litres of water.", "Portez 2 d'eau.", ("2 litres",)),
    ("Cook it 8-10 minutes.", "Cuisez-le 8 à 10 minutes.", ()),
    ("Cook it 8-10 minutes.", "Cuisez-le 8-10 l'eau.", ("8-10 minutes",)),  # a range, whole; `l'` is no litre
    ("Add 3 tbsp of oil, then 1 cup.", "Ajoutez 3 cuillères à soupe d'huile, puis 1.", ("1 cup",)),
    ("She is 5 years old.", "Elle a 5 ans.", ()),
])
def test_a_unit_dropped_or_changed_is_missing(source, output, missing):
    assert check(source, output).missing_units == missing


def test_a_name_the_corpus_writes_otherwise_in_french_is_asked_for_in_its_french_forms():
    words = CorpusWords(COUNTED.source | {"germany", "love"}, COUNTED.target | {"allemagne", "allemand", "france"},
                        cased=COUNTED.cased | {"Germany"}, capitalised=COUNTED.capitalised | {"germany"},
                        french=(("germany", "allemagne"),))
    assert not check("I love Germany.", "J'adore l'Allemagne.", words=words).missing_names
    assert not check("I love Germany.", "J'adore l'allemagne.", words=words).missing_names  # case aside
    assert check("I love Germany.", "J'adore la France.", words=words).missing_names == ("Germany",)
    # Without a French form of the corpus's, a name its French lacks is the model's to translate: any French name
    # of the corpus's French the source lacks may be its form; a garble, or a word the corpus renders another by, not.
    assert not check("I love Germany.", "J'adore la France.", words=replace(words, french=())).missing_names
    assert check("I love Germany.", "J'adore la Frence.", words=replace(words, french=())).missing_names
    assert check("I love Germany.", "J'adore la France.", words=replace(words, french=(("french", "france"),)))
    # Nor a word of one of the corpus's phrases, which French renders whole (`la veille de Noël`).
    eve = replace(words, source=words.source | {"eve", "see"}, phrases=frozenset({"christmas eve"}),
                  cased=words.cased | {"Eve"}, french=(("christmas", "noël"), ("eve", "réveillon")))
    assert not check("We see Christmas Eve.", "Nous voyons la veille de Noël.", words=eve).missing_names
    assert check("We see Eve.", "Nous voyons la veille.", words=eve).missing_names == ("Eve",)


def test_names_carried_text_terms_and_placeholders():
    expected = Expected(names=("Siobhan", "Zhang Wei"), carried=("🐱", "www.example.com"), terms=("base de données",),
                        placeholders=("Tom", "Mary"))
    kept = "Siobhan et ZHANG WEI voient 🐱 sur www.example.com, la base de données."
    assert not check("Siobhan and Zhang Wei see 🐱 on www.example.com, the database.", kept, expected, WORDS)
    found = check("Siobhan and Zhang Wei see 🐱 on www.example.com.", "Tomok et Mary voient la base.", expected, WORDS)
    assert found == Findings(missing_names=("Siobhan", "Zhang Wei"), missing_carried=("🐱", "www.example.com"),
                             missing_terms=("base de données",), placeholders=("Tomok", "Mary"))
    assert not check("I see.", "Je vois des tomates. D'Emma.", Expected(names=("Emma",), placeholders=("Tom",)),
                     WORDS)  # elided; a French word that begins like a placeholder


@pytest.mark.parametrize("source, output, missing", [
    ("The password is Blue#2025.", "Le mot de passe est Blue#2025.", ()),
    ("The password is Blue#2025.", "Le mot de passe est Blue à 2025#.", ("#2025",)),  # off the digits it was typed on
    ("Stay at a B&B or a hotel.", "Restez dans un B & B.", ("B&B",)),
    ("I ❤ cats and 572♥.", "J'❤ les chats et 572♥.", ()),  # against small letters or a space: the run alone
])
def test_carried_text_comes_back_against_the_digits_or_capitals_it_was_typed_against(source, output, missing):
    carried = tuple(sorted({char for char in source if char in "#&♥❤"}))
    assert check(source, output, Expected(carried=carried), WORDS).missing_carried == missing


@pytest.mark.parametrize("source, output, missing", [
    ("I saw Tom in Boston.", "J'ai vu Tom à Boston.", ()),
    ("I saw Tom in Boston.", "J'ai vu Tom.", ("Boston",)),  # a name the corpus's French writes as typed
    ("I saw Tom in London.", "J'ai vu Tom.", ()),  # `London` is no French word (`Londres`): not asked for
    ("I saw Tom in Boston.", "J'ai vu Tom à Bostone.", ()),  # a French gender ending
    ("I saw Tom in Boston.", "J'ai vu Tom à Bostan.", ("Boston",)),  # like it, but no word of the corpus's French
    ("Tom is here.", "Il est là.", ()),  # without the casing counts, a sentence's first word may be no name
    ("I SAW TOM IN BOSTON.", "J'AI VU.", ()),  # capitals and Title Case say nothing of names
])
def test_a_name_the_corpus_writes_in_french_as_typed_is_asked_for_inside_a_sentence(source, output, missing):
    assert check(source, output, words=WORDS).missing_names == missing


@pytest.mark.parametrize("source, output, missing", [
    ("We ate at Nando's in Seville.", "Nous avons mangé.", ("Nando", "Seville")),  # words the corpus lacks
    ("Hamid called.", "Il a appelé.", ("Hamid",)),  # at a sentence's start too
    ("Greetings From Lisbon", "Salutations", ("Lisbon",)),  # and in Title Case
    ("Tom is here.", "Il est là.", ("Tom",)),  # a name by the corpus's counts, wherever it stands
    ("NASA sent it by DHL.", "Il l'a envoyé.", ("NASA", "DHL")),  # capitals the corpus lacks
    ("The FBI came.", "Le Crom est venu.", ("FBI",)),  # capitals the corpus writes on both sides
    ("Sales rose in Q3 in room 4B.", "Les ventes ont augmenté au 3 dans la salle 4.", ("Q3", "4B")),  # codes
    ("We met in room a12.", "Nous nous sommes vus dans la salle.", ("a12",)),  # in small letters too
    ("Flight BA 2490 is late.", "Le vol BA est en retard de 2490.", ("BA 2490",)),  # with the number after it
    ("I bought an iPhone 15.", "J'ai acheté un 15.", ("iPhone 15",)),
    ("I met Kenji in Boston.", "J'ai vu Keni à Bostan.", ("Kenji", "Boston")),  # garbles are no French forms
    ("We love Japan.", "Nous aimons ce pays.", ("Japan",)),  # no French name in its place
    ("The UNESCO site is shut.", "Le site UNB est fermé.", ("UNESCO",)),
    ("The EU voted.", "Ils ont eu un vote.", ("EU",)),  # `eu` is a French word, not the acronym
    ("SALES ROSE IN Q3 AT ZORBLAX.", "LES VENTES.", ("Q3", "ZORBLAX")),  # in capitals: codes, names, no words
    ("SALES ROSE IN Q3 IN LISBON.", "LES VENTES.", ("Q3", "LISBON")),
])
def test_a_name_the_reading_did_not_hold_is_asked_for_by_the_line_and_the_corpus(source, output, missing):
    assert check(source, output, words=COUNTED).missing_names == missing


@pytest.mark.parametrize("source, output", [
    ("We ate at Nando's in Seville.", "Nous avons mangé chez Nando's à Séville."),  # accents aside
    ("The UN and the EU voted.", "L'ONU et l'UE ont voté."),  # a word of the corpus's French; the same letters
    ("Prices include VAT.", "Les prix incluent la TVA."),
    ("He moved to the USA.", "Il est parti aux États-Unis."),  # words of the corpus's French, capitalised
    ("I flew to Japan.", "Je suis allé au Japon."),  # a word of the corpus's French like it
    ("I met a Nigerian woman.", "J'ai rencontré une femme nigériane."),  # a gender ending
    ("Ask Dr. Okafor.", "Demande au docteur Okafor."),  # a title
    ("We live on Oak Street.", "Nous habitons rue Oak."),  # capitalised at times only: a word
    ("OK, the TV is VERY loud.", "D'accord, la télé est très forte."),  # short acronyms and words the corpus knows
    ("Flight BA 2490 is late.", "Le vol BA2490 est en retard."),
    ("Print it on A4 paper, not in Q3.", "Imprimez-le sur du papier a4, pas au Q3."),
    ("I saw Tom in London.", "J'ai vu Tom à Londres."),  # a word of the corpus's French like it
    ("We love Japan.", "Nous aimons le pays du Soleil-Levant."),  # with no French form known, any French name
])
def test_a_name_written_as_typed_or_in_a_french_form_is_not_flagged(source, output):
    assert not check(source, output, words=COUNTED).missing_names


@pytest.mark.parametrize("source, output, missing", [
    ("I saw Bill at the station.", "J'ai vu la gare.", ("Bill",)),  # a word the corpus writes small, capitalised
    ("Hi May, are you free?", "Salut, es-tu libre ?", ("May",)),  # a month beside no number
    ("Ask Summer about it.", "Demande-lui.", ("Summer",)),  # after a clause's first word, a verb's capital
    ("Thanks Summer!", "Merci !", ("Summer",)),
    ("Take it to Frank's Garage.", "Emmène-la au garage.", ("Frank",)),  # a run's first words
    ("We ate at the Golden Dragon.", "Nous avons mangé au Dragon.", ("Golden",)),  # after an article, a word it lacks
    ("It is near Central Station.", "C'est près de la gare.", ("Central",)),
    ("The UN will vote.", "Un vote aura lieu.", ("UN",)),  # an acronym after an article; `Un` is a French word
    ("The WHO says so.", "Qui le dit.", ("WHO",)),
    ("He moved to the US.", "Il nous a quittés.", ("US",)),
    ("Our IT team called.", "Notre équipe a appelé.", ("IT",)),  # a pronoun after a possessive
])
def test_a_known_word_the_line_marks_as_a_name_is_asked_for(source, output, missing):
    assert check(source, output, words=COUNTED).missing_names == missing


# The corpus uses `frank` and `grace` seldom (`CorpusWords.seldom`): typed as given names, they are likelier names.
GIVEN = replace(COUNTED, source=COUNTED.source | {"will", "walks", "are", "back", "says", "for", "see", "my", "sister",
                                                  "page", "wedding"},
                seldom=frozenset({"frank", "grace"}))


@pytest.mark.parametrize("source, output, missing", [
    ("Frank Ocean cancels his tour.", "L'océan franc annule sa tournée.", ("Frank",)),  # at a clause's start too
    ("Rose's tip: stir it.", "L'astuce : remuez.", ("Rose",)),  # a possessive
    ("ok, im not going if jake's going", "ok, je n'y vais pas s'il y va", ("jake",)),  # one the corpus lacks
    ("btw will is coming too", "au fait, il viendra aussi", ("will",)),  # an auxiliary before one: its subject
    ("Summer Walker was named captain.", "L'été Walker a été nommé capitaine.", ("Summer",)),  # another name after
    ('ANSWERS TO "FRANK".', "RÉPOND À « L'ÂGE ».", ("FRANK",)),  # in capitals
    ("GRACE AND WILL'S WEDDING", "LE MARIAGE DE GRACE ET DE LA VOLONTÉ", ("WILL",)),
    ("omw, traffic on the m25 is insane", "en route, la circulation sur la 25 est folle", ("m25",)),  # a code
])
def test_a_given_name_the_line_marks_as_a_persons_is_asked_for(source, output, missing):
    assert check(source, output, words=GIVEN).missing_names == missing
    older = replace(GIVEN, seldom=frozenset(), french=())  # a model file without the corpus's counts of use
    assert not check(source, output, words=older).missing_names or "m25" in missing


@pytest.mark.parametrize("source, output", [
    ("Frank Ocean cancels his tour.", "Frank Ocean annule sa tournée."),
    ("Will you come?", "Viendras-tu ?"),  # an auxiliary before a pronoun
    ("Summer is here.", "L'été est là."),  # a given name but no auxiliary before one: a word
    ("I love summer walks.", "J'adore les promenades d'été."),  # in small letters in a line typed as written
    ("Summer Walks Are Back", "Les promenades d'été sont de retour"),  # in Title Case, a run says nothing
    ("See My Sister's Page", "Voir la page de ma sœur"),  # after a possessive: a common noun
    ("omw, traffic on the m25 is insane", "en route, la circulation sur la m25 est folle"),
    ("idk, maybe ask frank?", "je sais pas, demande à frank ?"),  # in small letters, written as typed
])
def test_a_given_name_the_line_does_not_mark_or_the_french_writes_is_not_flagged(source, output):
    assert not check(source, output, words=GIVEN).missing_names


def test_a_word_made_of_a_corpus_word_is_asked_for_only_where_its_capital_is_the_writers():
    assert check("We met Tipping.", "Nous l'avons rencontré.", words=GIVEN).missing_names == ("Tipping",)
    assert not check("Tipping is rare.", "Le pourboire est rare.", words=GIVEN).missing_names  # a clause's capital
    assert not check("Tipping Tips For Tom", "Des pourboires pour Tom", words=GIVEN).missing_names  # Title Case


# The corpus renders `dawn` by `aube` and `hope` by `espère` (`CorpusWords.rendered`); it never uses `holly` or `sue`.
RENDERED = replace(GIVEN, source=GIVEN.source | {"dawn", "hope", "woke", "up", "at", "mark", "box", "wash", "of", "time",
                                                 "don", "t", "worry", "joy", "to", "world"},
                   french=(("christmas", "noël"), ("dawn", "aube"), ("hope", "espère"), ("wash", "lavez"),
                           ("don", "pas"), ("joy", "joie")))


@pytest.mark.parametrize("source, output, missing", [
    ("happy bday dawn!!", "joyeux anniversaire !", ("dawn",)),  # neither as typed nor as the word
    ("Holly, the printer is out of toner.", "L'imprimante n'a plus d'encre.", ("Holly",)),  # one the corpus lacks
    ("btw did u see what sue posted", "as-tu vu ce que j'ai posté", ("sue",)),
    ("idk, maybe ask frank?", "je sais pas, demande peut-être ?", ("frank",)),  # in small letters, dropped
    ("Hope you are well.", "Vous allez bien.", ("Hope",)),  # capitalised, first in a clause
])
def test_a_given_name_written_in_no_form_is_missing(source, output, missing):
    assert check(source, output, words=RENDERED).missing_names == missing


def test_a_model_file_without_the_corpus_s_renderings_asks_no_given_name_loosely():
    for source, output in (("happy bday dawn!!", "joyeux anniversaire !"), ("Hope you are well.", "Vous allez bien."),
                           ("idk, maybe ask frank?", "je sais pas, demande peut-être ?")):
        assert check(source, output, words=RENDERED).missing_names
        assert not check(source, output, words=replace(RENDERED, french=())).missing_names


@pytest.mark.parametrize("source, output", [
    ("woke up at dawn, so tired", "réveillé à l'aube, si fatigué"),  # written as the word the corpus renders it by
    ("Hope you are well.", "J'espère que vous allez bien."),
    ("happy bday Dawn!!", "joyeux anniversaire Dawn !"),
    ("Mark the box.", "Cochez la case."),  # a word the corpus knows and renders by no word of its own
    ("Wash it at 40°C.", "Mettez-le à 40 °C."),  # in Faker's records of given names, but none most given
    ("Don't worry.", "T'inquiète."),  # a contraction's first letters, not `Don`
    ("JOY TO THE WORLD", "JOIE AU MONDE"),  # in capitals a word, not an acronym
    ("i woke up at the dawn of time", "je me suis réveillé au commencement"),  # after an article: a common noun
])
def test_a_given_name_written_in_some_form_or_not_asked_is_not_flagged(source, output):
    assert not check(source, output, words=RENDERED).missing_names


@pytest.mark.parametrize("source, output, missing", [
    ("just landed in dublin!!", "je viens d'atterrir !", ("dublin",)),  # in small letters, a place the corpus lacks
    ("LAST SEEN IN LEEDS ON FRIDAY", "VU POUR LA DERNIÈRE FOIS VENDREDI", ("LEEDS",)),  # in capitals
    ("flying to boston tmrw", "je prends l'avion demain", ("boston",)),  # one the corpus writes as a name
])
def test_a_place_typed_where_casing_says_nothing_is_asked_for(source, output, missing):
    assert check(source, output, words=GIVEN).missing_names == missing
    assert not check(source, output.replace(" !", " à Dublin !").replace("VENDREDI", "À LEEDS VENDREDI")
                     .replace("demain", "pour Boston demain"), words=GIVEN).missing_names


def test_a_place_that_is_a_corpus_word_is_not_asked_for_in_small_letters_or_capitals():
    plunge = replace(GIVEN, source=GIVEN.source | {"stocks", "plunge"})  # `Plungė`, a Lithuanian town
    assert not check("STOCKS PLUNGE 6%", "LES ACTIONS CHUTENT DE 6%", words=plunge).missing_names
    assert check("STOCKS PLUNGE 6%", "LES ACTIONS CHUTENT DE 6%", words=GIVEN).missing_names == ("PLUNGE 6",)



# The corpus's words split at an apostrophe (`didn't`: `didn`, `t`).
CHAT = replace(GIVEN, source=GIVEN.source | {"can", "u", "grab", "milk", "from", "pls", "all", "flights", "didn", "got",
                                            "deal", "love", "zorbing"})


@pytest.mark.parametrize("source, output, missing", [
    ("can u grab milk from tesco pls", "peux-tu prendre du lait stp", ("tesco",)),  # neither the corpus's nor a word
    ("ALL FLIGHTS FROM GATWICK CANCELLED", "TOUS LES VOLS ANNULÉS", ("GATWICK",)),
])
def test_a_word_no_dictionary_has_typed_where_casing_says_nothing_is_asked_for(source, output, missing):
    assert check(source, output, words=CHAT).missing_names == missing
    assert not check(source, f"{output} {missing[0]}", words=CHAT).missing_names


@pytest.mark.parametrize("source, output", [
    ("DANGER: HIGH VOLTAGE", "DANGER : HAUTE TENSION"),  # the corpus lacks it, a dictionary has it
    ("hahaha i didnt know", "je savais pas"),  # a laugh; a contraction, its apostrophe left out
    ("tbh ngl it was sooooo good", "franchement c'était trop bien"),  # short, or stretched
    ("got a last-minute deal", "j'ai eu une affaire de dernière minute"),  # hyphenated: words of the dictionary
    ("we love zorbing", "on adore les boules"),  # the corpus's word, though no dictionary has it
    ("Meet me at tesco.", "Retrouve-moi au magasin."),  # a line typed as written: its casing tells names
])
def test_a_word_typed_where_casing_says_nothing_that_is_a_word_is_not_asked_for(source, output):
    assert not check(source, output, words=CHAT).missing_names

LETTERS = replace(GIVEN, source=GIVEN.source | {"attach", "panel", "use", "tab", "meet", "car", "park", "heat", "it",
                                                "got", "catch", "some", "cat", "sat", "saw", "win", "trip", "paris"})


@pytest.mark.parametrize("source, output, missing", [
    ("Attach panel C to panel D.", "Fixez le panneau à l'autre.", ("C", "D")),  # a letter alone labels a thing
    ("Use tab C.", "C'est l'onglet.", ("C",)),  # `c'est` writes no `C`
    ("WE MEET AT CAR PARK C", "NOUS NOUS RETROUVONS AU PARKING", ("C",)),
])
def test_a_capital_letter_alone_is_a_label_to_write_as_typed(source, output, missing):
    assert check(source, output, words=LETTERS).missing_names == missing
    assert not check(source, output.replace("l'autre", "C au panneau D").replace("l'onglet", "l'onglet C")
                     .replace("PARKING", "PARKING C"), words=LETTERS).missing_names


@pytest.mark.parametrize("source, output", [
    ("Heat it to 180°C.", "Chauffez-le à 180 degrés."),  # a unit's letter
    ("I've got to catch some Z's.", "Je dois dormir un peu."),  # with a possessive
    ("A cat sat. I saw it.", "Un chat s'est assis. Je l'ai vu."),  # first in a clause; `I`
    ("WIN A TRIP TO PARIS", "GAGNEZ UN VOYAGE POUR PARIS"),  # `A` in capitals: the article as likely
])
def test_a_letter_that_is_no_label_is_not_asked_for(source, output):
    assert not check(source, output, words=LETTERS).missing_names


def test_a_french_word_the_corpus_renders_another_english_word_by_is_no_form_of_a_name():
    during = replace(GIVEN, target=GIVEN.target | {"pendant", "arabes"}, french=(("during", "pendant"),
                                                                                   ("arab", "arabes")))
    assert check("We drove to Penrith.", "Nous avons roulé pendant.", words=during).missing_names == ("Penrith",)
    assert not check("We drove to Penrith.", "Nous avons roulé pendant.", words=replace(during, french=()))
    assert not check("We are Arabs.", "Nous sommes arabes.", words=during).missing_names  # `arab`'s: like `Arabs`
    leeds = replace(GIVEN, source=GIVEN.source | {"leeds", "trains", "run", "between", "and"},
                    cased=GIVEN.cased | {"Leeds"}, french=(("states", "états-unis"), ("states", "états")))
    output = "Les trains roulent entre les États-Unis et Tom."
    assert check("Trains run between Leeds and Tom.", output, words=leeds).missing_names == ("Leeds",)
    assert not check("Trains run between Leeds and Tom.", output, words=replace(leeds, french=(("x", "y"),)))


def test_in_a_line_typed_in_capitals_a_place_or_given_name_is_a_word_not_an_acronym():
    found = check("ALL FLIGHTS TO OSLO CANCELLED", "TOUS LES VOLS POUR L'INSPLO ANNULÉS", words=GIVEN)
    assert found.missing_names == ("OSLO",)  # `INSPLO` has its letters, but is no form of a word
    assert not check("ALL FLIGHTS TO OSLO CANCELLED", "TOUS LES VOLS POUR OSLO ANNULÉS", words=GIVEN).missing_names
    assert check("trip to krakow in may", "voyage en mai", words=GIVEN).missing_names == ("krakow",)  # `Kraków`
    assert check("FLIGHTS TO KRAKÓW CANCELLED", "VOLS ANNULÉS", words=GIVEN).missing_names == ("KRAKÓW",)


def test_a_long_line_is_checked_in_linear_work():
    marked, capitals = "my Sister's Page at Golden Dragon for $5 " * 5_000, "AB" * 100_000 + " #"
    run = "we went to the " + "Golden Dragon " * 5_000 + "today"  # each word's run of capitals: the whole line's
    with linear_work(10):  # linear: about 2 s in all; each word looked back at from the line's start: minutes
        check(marked, marked, words=GIVEN)
        check(run, "", words=GIVEN)
        check(capitals, capitals, Expected(carried=("#",)), GIVEN)


def test_in_a_french_in_capitals_a_word_stands_for_an_acronym_only_with_its_letters():
    expected = Expected(names=("UN",))
    assert check("SAYS THE UN", "DIT L'EAU.", expected, GIVEN).missing_names == ("UN",)  # every word is in capitals
    assert not check("SAYS THE UN", "DIT L'ONU.", expected, GIVEN).missing_names
    assert not check("Says the UN", "Dit l'EAU.", expected, GIVEN).missing_names  # as written, a French name


@pytest.mark.parametrize("source, output", [
    ("Hi May, are you free?", "Salut May, es-tu libre ?"),
    ("We leave in May.", "Nous partons en mai."),  # a month in its French name
    ("We rest on Mondays.", "Nous nous reposons le lundi."),  # a weekday in the plural, as French names it
    ("Today's tip: stir it.", "L'astuce du jour : remuez."),  # at a clause's start, a possessive says no name
    ("The Mayor came.", "Le maire est venu."),  # after an article: a title
    ("We saw the Winter Olympics.", "Nous avons vu les Jeux olympiques d'hiver."),  # an institution's run
    ("We gave to Red Cross.", "Nous avons donné à la Croix-Rouge."),  # a run the corpus writes as a name
    ("We live on Baker Street.", "Nous habitons rue Baker."),  # a run's last word names what it is
    ("It is near Central Station.", "C'est près de la gare centrale."),
    ("Christmas Day is here.", "Noël est là."),  # after a name the corpus knows, a run's last word too
    ("I read it in The Guardian.", "Je l'ai lu dans le Guardian."),  # a word of grammar
    ("Lesson Two is here.", "La leçon deux est là."),  # a number
    ("Meet me at Gate 12.", "Retrouve-moi porte 12."),  # a label beside a number
    ("The UN and the WHO met.", "L'ONU et l'OMS se sont réunies."),  # a word of the corpus's French; an acronym
    ("Ask the HR team.", "Demande à l'équipe des ressources humaines."),  # spelt out
    ("He moved to the US.", "Il est parti aux É.-U."),  # with its stops
    ("Turn off the TV.", "Éteins la télé."),  # an acronym the corpus writes in capitals and translates
    ("You are the BEST.", "Tu es le meilleur."),  # a word in capitals longer than an acronym
])
def test_a_known_word_not_marked_or_written_in_a_french_form_is_not_flagged(source, output):
    assert not check(source, output, words=COUNTED).missing_names


def test_findings_as_notes_and_a_json_object():
    found = Findings(missing_numbers=("3", "12"), missing_names=("Siobhan", "Zhang Wei"))
    assert found.notes() == ["numbers of the source not in the translation, check it: 3 12",
                             "names of the source not in the translation, check it: Siobhan | Zhang Wei"]
    assert found.as_dict()["missing_numbers"] == ["3", "12"] and found.as_dict()["placeholders"] == []
    assert list(found.as_dict()) == ["missing_numbers", "added_numbers", "missing_names", "missing_carried",
                                     "missing_terms", "placeholders", "missing_units"]  # new kinds at the end
    assert Findings(missing_units=("2.4 kg", "£12")).notes() == [
        "units of the source not in the translation, check it: 2.4 kg | £12"]
    assert found and not Findings()

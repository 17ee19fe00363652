"""The weekdays and months in English and French, in calendar order: the calendar and date augmentations
rewrite them, and the translator writes the first of a month `1er`."""

DAYS = (("Monday", "lundi"), ("Tuesday", "mardi"), ("Wednesday", "mercredi"), ("Thursday", "jeudi"),
        ("Friday", "vendredi"), ("Saturday", "samedi"), ("Sunday", "dimanche"))
MONTHS = (("January", "janvier"), ("February", "février"), ("March", "mars"), ("April", "avril"), ("May", "mai"),
          ("June", "juin"), ("July", "juillet"), ("August", "août"), ("September", "septembre"),
          ("October", "octobre"), ("November", "novembre"), ("December", "décembre"))
ENGLISH_MONTH_NAMES, FRENCH_MONTH_NAMES = ("|".join(names) for names in zip(*MONTHS))  # patterns naming any month

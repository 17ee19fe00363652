"""Stage `vocab`: train split -> source/target vocabularies and their OOV report."""

from attention_lab.atomic import write_json
from attention_lab.config import load_section
from attention_lab.corpus import SPLITS, load_split
from attention_lab.errors import run_main
from attention_lab.stage import stage_args
from attention_lab.vocab import VocabParams, build_vocabularies


def main() -> None:
    args = stage_args(__doc__, data="folder of the tokenized splits", out="folder for src.json and tgt.json",
                      report="JSON report")
    params = load_section(args.params, "vocab", VocabParams)
    splits = {name: load_split(args.data, name) for name in SPLITS}
    src, tgt, report = build_vocabularies(splits, params)
    src.save(args.out / "src.json")
    tgt.save(args.out / "tgt.json")
    write_json(args.report, report)


if __name__ == "__main__":
    run_main(main)

"""Stage `train_tokenizer`: train split -> the tokenizer (subword model or word vocabularies) and its report."""

from attention_lab.atomic import write_json
from attention_lab.config import load_section
from attention_lab.data.splits import SPLITS, load_split
from attention_lab.data.tokenizer import TOKENIZER_FILE, TokenizerParams
from attention_lab.data.tokenizer_training import build_tokenizer
from attention_lab.errors import run_main
from attention_lab.stage import stage_args


def main() -> None:
    args = stage_args(__doc__, data="folder of the split stage's splits", out=f"folder for {TOKENIZER_FILE}",
                      report="JSON report")
    params = load_section(args.params, "train_tokenizer", TokenizerParams)
    tokenizer, report = build_tokenizer({name: load_split(args.data, name) for name in SPLITS}, params)
    tokenizer.save(args.out / TOKENIZER_FILE)
    write_json(args.report, report)


if __name__ == "__main__":
    run_main(main)

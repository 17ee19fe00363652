"""`attention-lab`: translate with a trained model, or benchmark training and decoding speed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from contextlib import ExitStack, closing
from pathlib import Path
from typing import NoReturn

from attention_lab.arguments import positive_int
from attention_lab.bench import command as bench_command
from attention_lab.errors import UserError, run_main, write_stdout

EPILOG = """examples:
  attention-lab translate "I lost." "He's calm."
  attention-lab translate "Close the window. It is cold in here."
  attention-lab translate --beam 1 --heatmap lost.png "I lost."
  attention-lab translate --html explorer.html "I lost." "She is taller than her brother."
  attention-lab translate --input english.txt --output french.txt
  attention-lab translate --glossary terms.tsv "The database is down."
  echo "Go." | attention-lab translate
  attention-lab bench --reference
  attention-lab promote --model-dir models/seq2seq"""


def input_lines(args: argparse.Namespace, stack: ExitStack) -> tuple[str, Iterable[str]]:
    """The input's name in errors and its lines, read as they are used: the arguments, `--input
    FILE` (`-` = stdin) or piped stdin; a file stays open in `stack`."""
    from attention_lab.inference.lines import decoded_lines

    if args.sentences and args.input:
        raise UserError("give sentences as arguments or with --input, not both")
    if args.sentences:
        for i, line in enumerate(args.sentences, 1):
            if not line.strip():
                raise UserError(f"sentence {i} is empty")
        return "arguments", args.sentences
    if args.input and args.input != "-":
        try:
            return args.input, decoded_lines(args.input, stack.enter_context(open(args.input, "rb")))
        except FileNotFoundError:
            raise UserError(f"{args.input}: no such input file") from None
        except IsADirectoryError:
            raise UserError(f"{args.input}: is a directory, not a file") from None
    if args.input == "-" or not sys.stdin.isatty():
        return "stdin", decoded_lines("stdin", getattr(sys.stdin, "buffer", sys.stdin))
    raise UserError("nothing to translate: give sentences, --input FILE, or pipe text in")


def check_output_folder(option: str, path: str | None) -> None:
    """A typo in an output path fails before any work instead of creating folders (or after the
    work, writing onto a folder)."""
    if path is not None and not Path(path).resolve().parent.is_dir():
        raise UserError(f"{option} {path}: no such directory {str(Path(path).parent)!r}")
    if path is not None and Path(path).is_dir():
        raise UserError(f"{option} {path}: is a directory, not a file name")


# SearchParams' keys and the `translate` options that set them: errors name the option typed.
SEARCH_OPTIONS = {"beam_size": "--beam", "length_penalty": "--length-penalty", "coverage_penalty": "--coverage-penalty",
                  "min_len_ratio": "--min-len-ratio", "max_len_ratio": "--max-len-ratio",
                  "max_len_extra": "--max-len-extra",
                  "batch_size": "--batch-size", "max_source_chars": "--max-source-chars",
                  "max_source_pieces": "--max-source-pieces", "max_output_pieces": "--max-output-pieces"}


def translate(args: argparse.Namespace) -> None:
    import torch

    from attention_lab.atomic import atomic_path, write_with
    from attention_lab.config import ConfigError, from_mapping
    from tqdm import tqdm

    from attention_lab.inference.lines import chunked, count_lines, translated_lines
    from attention_lab.inference.refusals import NotText, SourceTooLong
    from attention_lab.inference.translation import report_line
    from attention_lab.inference.translator import SearchParams, Translator
    from attention_lab.text.glossary import Glossary

    check_output_folder("--output", args.output)
    check_output_folder("--heatmap", args.heatmap)
    check_output_folder("--html", args.html)
    check_output_folder("--report", args.report)
    glossary = Glossary.load(args.glossary) if args.glossary else None
    with ExitStack() as stack:
        name, lines = input_lines(args, stack)
        if args.device == "cuda" and not torch.cuda.is_available():
            raise UserError("--device cuda: no CUDA device is available")
        values = {key: getattr(args, option[2:].replace("-", "_")) for key, option in SEARCH_OPTIONS.items()}
        values["split_sentences"] = not args.no_split  # switches: no value to name in an error
        values["copy_numbers"] = not args.free_numbers
        values["drop_repeats"] = not args.keep_repeats
        try:
            search = from_mapping(SearchParams, values, "translate")
        except ConfigError as exc:
            key, _, reason = str(exc).partition(": ")
            option = SEARCH_OPTIONS.get(key.removeprefix("translate."))
            raise UserError(f"{option}: {reason}" if option else str(exc)) from None
        chunks = chunked(lines)
        translator = Translator.load(args.model, args.device, args.precision)
        show = not args.quiet and sys.stderr.isatty()
        total = (count_lines(args.input) if name == args.input else len(args.sentences) or None) if show else None
        # Lines translated, as a bar on stderr when it is a terminal; notes print above it (tqdm.write).
        progress = stack.enter_context(closing(tqdm(total=total, unit=" lines", file=sys.stderr, dynamic_ncols=True,
                                                    leave=False, disable=not show)))
        kept = []  # the translations, for the heatmap only: otherwise memory holds one chunk's
        typed = []  # the lines translated, for the page, which translates them again keeping every map
        # Written beside the output and, as it, in place only once every line is: a failure leaves the old report.
        report = stack.enter_context(open(stack.enter_context(atomic_path(args.report)), "w", encoding="utf-8")) \
            if args.report else None

        def write_all(write: Callable[[str], object]) -> None:
            for number, result in enumerate(translated_lines(translator, chunks, search, bool(args.heatmap),
                                                             progress.update, glossary), 1):
                write(f"{result.text if result else ''}\n")
                if report:
                    report.write(report_line(number, result))
                for note in result.notes() if result and not args.quiet else ():
                    tqdm.write(f"note: line {number}: {note}", file=sys.stderr)
                if result and args.heatmap:
                    kept.append(result)
                if result and args.html:
                    typed.append(result.source)

        try:
            if args.output:
                write_with(args.output, lambda file: write_all(lambda text: file.write(text.encode("utf-8"))))
            else:
                write_all(write_stdout)
        except (SourceTooLong, NotText) as exc:
            where = f"sentence {exc.index + 1}" if args.sentences else f"{name}: line {exc.index + 1}"
            why = f"{exc.over(SEARCH_OPTIONS[exc.key])}: {exc.advice}" if isinstance(exc, SourceTooLong) else exc.reason
            raise UserError(f"{where}: {why}") from None
    if args.heatmap and kept:  # empty input: no translation, no heatmap
        save_heatmaps(kept, Path(args.heatmap))
    if args.html and typed:
        save_explorer(translator, search, typed, Path(args.html), glossary)


def save_heatmaps(results: list, path: Path) -> None:
    from attention_lab.evaluation.heatmaps import heads_grid, translations_grid
    from attention_lab.plotting import save_figure

    save_figure(translations_grid(results), path)
    if results and results[0].layout != (1, 1):  # a multi-head model: each sentence's maps by layer and head too
        for k, result in enumerate(results, 1):
            heads = path.with_name(f"{path.stem}-heads-{k}{path.suffix}")
            save_figure(heads_grid(result, f"sentence {k}"), heads)
            print(f"note: attention by layer and head: {heads}", file=sys.stderr)


def save_explorer(translator, search, sources: list[str], path: Path, glossary=None) -> None:
    from attention_lab.atomic import write_text
    from attention_lab.evaluation.explorer import Entry, explored, identity, page

    entries = [Entry(source, "typed") for source in sources]
    write_text(path, page("Attention explorer", identity(translator, search), translator,
                          explored(translator, entries, search, glossary)))


def promote(args: argparse.Namespace) -> None:
    from attention_lab.tracking.registry import promote as promote_run
    from attention_lab.tracking.registry import recorded_run

    print(promote_run(args.run_id or recorded_run(Path(args.model_dir)), args.metric))


class Parser(argparse.ArgumentParser):
    """Bad arguments are one line, `error: ...`, and exit status 2, like every other user error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="attention-lab", description=__doc__, epilog=EPILOG,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    t = commands.add_parser("translate", help="translate English to French")
    t.add_argument("sentences", nargs="*", help="English sentences (or use --input / stdin)")
    t.add_argument("--model", default="models/seq2seq", help="model.pt or its folder (default: %(default)s)")
    t.add_argument("--beam", type=positive_int, default=8, help="beam size; 1 = greedy (default: %(default)s)")
    t.add_argument("--length-penalty", type=float, default=1.0, help="GNMT alpha (default: %(default)s)")
    t.add_argument("--coverage-penalty", type=float, default=0.0, help="GNMT beta; 0 = off (default: %(default)s)")
    t.add_argument("--min-len-ratio", type=float, default=0.0,
                   help="no <eos> before floor(ratio x source pieces) output pieces (default: %(default)s)")
    t.add_argument("--max-len-ratio", type=float, default=2.0,
                   help="output pieces at most this times the source's, plus --max-len-extra (default: %(default)s)")
    t.add_argument("--max-len-extra", type=int, default=10, help="see --max-len-ratio (default: %(default)s)")
    t.add_argument("--batch-size", type=positive_int, default=128)
    t.add_argument("--max-source-chars", type=positive_int, default=4096,
                   help="refuse longer lines before reading them (default: %(default)s; the longest training "
                   "sentence is 286)")
    t.add_argument("--max-source-pieces", type=positive_int, default=256,
                   help="refuse longer sentences (default: %(default)s; the longest training sentence is 74)")
    t.add_argument("--max-output-pieces", type=positive_int, default=512,
                   help="no translation runs longer, whatever --max-len-ratio says (default: %(default)s)")
    t.add_argument("--free-numbers", action="store_true", help="search digits freely (default: the source's numbers)")
    t.add_argument("--glossary", metavar="FILE",
                   help="TSV of 'English<TAB>French' terms the translation must use (README: Glossary)")
    t.add_argument("--keep-repeats", action="store_true",
                   help="keep words the model wrote twice in a row (default: written once)")
    t.add_argument("--no-split", action="store_true",
                   help="translate each line whole, not sentence by sentence (the model learnt from single sentences)")
    t.add_argument("--input", help="file with one line of text per line, - for stdin")
    t.add_argument("--output", help="write translations here instead of stdout")
    t.add_argument("--report", metavar="FILE", help="write what the check after writing found in each line here, "
                   "a JSON object a line: numbers, names and carried text missing, numbers added (README: Translating)")
    t.add_argument("--heatmap", help="save the attention heatmap(s) to this PNG (and, for a Transformer, "
                   "each sentence's maps by layer and head to NAME-heads-K.png)")
    t.add_argument("--html", help="save the attention explorer page of the sentences (greedy beside beam, every "
                   "layer and head) to this HTML file")
    t.add_argument("--device", choices=("cpu", "cuda"), default=None, help="default: cuda when available")
    t.add_argument("--precision", choices=("auto", "32", "bf16"), default="auto",  # model/precision.py's
                   help="the search's arithmetic: float32, or bf16 autocast; auto: bf16 where measured faster "
                   "(docs/speed.md), else float32 (default: %(default)s)")
    t.add_argument("--quiet", action="store_true",
                   help="no progress bar (shown for --input on a terminal) and no notes on stderr, only errors")
    t.set_defaults(func=translate)

    bench_command.add_parser(commands)

    p = commands.add_parser("promote", help="register a trained model in MLflow; make it @champion if it is better")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--run-id", help="MLflow run of the training (default: the one in --model-dir)")
    which.add_argument("--model-dir", default="models/seq2seq",
                       help="folder whose mlflow_run.json names the run (default: %(default)s)")
    p.add_argument("--metric", default="test.beam.bleu",
                   help="higher is better; compared with the champion's (default: %(default)s)")
    p.set_defaults(func=promote)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    run_main(lambda: args.func(args))


if __name__ == "__main__":
    main()

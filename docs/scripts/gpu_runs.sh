#!/usr/bin/env bash
# The GPU runs behind docs/speed.md's GPU section, on a machine with a card and PyTorch but neither
# DVC nor MLflow: the stages run from PYTHONPATH=src with MLflow off. Phases, run in the order given:
#   step      the GPU recipe's training step alone (`gpu_runs.py step`) with each attention setting
#             (kernels, packing), and a profile; sets KERNELS and PACKING to the fastest unless set
#   compile   the same step eager and compiled (trainer.compile), one sentence a row and 128 tokens a row
#             (the compiling timed apart, the graphs counted), KERNELS, PACKING and COMPILE kept where set;
#             sets COMPILE and PACKING to the setting that trains the most in RECIPE_MINUTES
#   recipe    the GPU recipe's stage for RECIPE_MINUTES (default 8), and its rate against the bf16 peak
#   evaluate  the evaluate stage on the recipe's model (from this call or an earlier one on the same machine)
#   variants  the recipe's stage for RECIPE_MINUTES with each of VARIANTS (settings; a ';' between
#             variants), e.g. "train_seq2seq.model.transformer.model_size=768 train_seq2seq.model.transformer.heads=12;
#             train_seq2seq.optim.lr=0.001": their val BLEU, to choose on the valid split, and rates
#   budget    the README's Transformer's stage with a 2-minute budget
#   bench     `attention-lab bench`
#   smoke     both architectures on the tiny corpus
# e.g. `RECIPE_MINUTES=2 bash docs/scripts/gpu_runs.sh step recipe evaluate budget`,
# then `bash docs/scripts/gpu_runs.sh bench`.
# KERNELS: a YAML list for train_seq2seq.trainer.attention_kernels (default null: PyTorch's choice);
# PACKING: train_seq2seq.trainer.attention_packing (default null: one sentence a row); COMPILE: the
# recipe's train_seq2seq.trainer.compile (default false).
# SETTINGS: more KEY=VALUE params for the recipe's step and stage and the budget stage, e.g.
# train_seq2seq.trainer.validations=8, or a wider recipe (model.transformer.model_size=1024 ...).
# Needs artifacts/splits and artifacts/tokenizer (`dvc repro train_tokenizer`), data/fra-eng.zip, and
# the sentencex and breame wheels in .whl/ where the machine lacks them. Writes its logs to $OUT (default
# /tmp/gpu-runs).
set -uo pipefail
OUT=${OUT:-/tmp/gpu-runs}
WORK=${WORK:-/tmp/gpu-runs-work}  # kept, so that a later call on a still-warm machine finds the recipe's model
mkdir -p "$OUT" "$WORK"
if ! python3 -c "import sentencex, breame" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1

# README's documented Transformer, and the GPU recipe (README: Scaling out) as training/gpu_recipe.py holds it,
# without its budget: each phase sets its own.
TRANSFORMER=(train_seq2seq.model.arch=transformer train_seq2seq.optim.lr=0.003 train_seq2seq.optim.warmup_steps=1000
             train_seq2seq.optim.label_smoothing=0.1)
mapfile -t GPU_RECIPE < <(python3 docs/scripts/gpu_runs.py recipe)
[ ${#GPU_RECIPE[@]} -gt 0 ] || { echo "no GPU recipe from docs/scripts/gpu_runs.py recipe" >&2; exit 1; }

stage() {  # LIMIT NAME KEY=VALUE...: the train_seq2seq stage with these params, killed after LIMIT s
  local limit=$1 name=$2
  shift 2
  rm -rf "${WORK:?}/$name"  # a fresh run: no resuming an earlier call's, no reporting its files
  # shellcheck disable=SC2086  # SETTINGS is a list of words
  python3 docs/scripts/gpu_runs.py params "$WORK/$name.yaml" "$@" ${SETTINGS:-} \
    train_seq2seq.trainer.progress_bar=false || return 1
  timeout "$limit" python3 -m pipeline.train_seq2seq --params "$WORK/$name.yaml" --data artifacts/splits \
    --tokenizer artifacts/tokenizer --out "$WORK/$name/model" --reports "$WORK/$name/reports" 2>&1 |
    grep -v "^\s*$" > "$OUT/$name.log"
  tail -n 12 "$OUT/$name.log"
  echo "$name warnings:"; grep -i "warn\|\.py:[0-9]*: " "$OUT/$name.log" | cut -c 1-200 | sort | uniq -c
  cp "$WORK/$name/reports/history.csv" "$OUT/$name-history.csv"
  echo "$name metrics: $(tr -d '\n ' < "$WORK/$name/reports/metrics.json")"
}

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import torch, pytorch_lightning as pl; print('torch', torch.__version__, 'lightning', pl.__version__)"
git log -1 --format='commit %h %cd' 2>/dev/null
KERNELS=${KERNELS:-} PACKING=${PACKING:-} COMPILE=${COMPILE:-}
for phase in "$@"; do
  echo "== $phase ($(date +%T))"
  start=$(date +%s)
  case "$phase" in
    step)
      # shellcheck disable=SC2086  # SETTINGS is a list of words
      python3 docs/scripts/gpu_runs.py params "$WORK/step.yaml" "${GPU_RECIPE[@]}" ${SETTINGS:-} || exit 1
      timeout 360 python3 docs/scripts/gpu_runs.py step "$WORK/step.yaml" artifacts/splits artifacts/tokenizer 24 2>&1 |
        grep -v "^\s*$\|USDT" | tee "$OUT/step.log" | grep -v "^ \|^--"
      fastest=$(sed -n 's/^fastest kernels: //p' "$OUT/step.log")
      [ -z "$KERNELS" ] && [ -n "$fastest" ] && KERNELS="[$fastest]"
      [ -z "$PACKING" ] && PACKING=$(sed -n 's/^fastest packing: //p' "$OUT/step.log")
      grep -q "^fastest packing:" "$OUT/step.log" || echo "step: no fastest setting (cut short?): PyTorch's choice" >&2
      echo "KERNELS=${KERNELS:-null} PACKING=${PACKING:-null}"
      ;;
    compile)
      # shellcheck disable=SC2086  # SETTINGS is a list of words
      python3 docs/scripts/gpu_runs.py params "$WORK/step.yaml" "${GPU_RECIPE[@]}" ${SETTINGS:-} || exit 1
      KERNELS=$KERNELS PACKING=$PACKING COMPILE=$COMPILE timeout 420 \
        python3 docs/scripts/gpu_runs.py step "$WORK/step.yaml" \
        artifacts/splits artifacts/tokenizer 24 compile "${RECIPE_MINUTES:-8}" 2>&1 |
        grep -v "^\s*$" | tee "$OUT/compile.log" | grep "^{"
      if grep -q "^fastest compile:" "$OUT/compile.log"; then
        [ -z "$COMPILE" ] && COMPILE=$(sed -n 's/^fastest compile: //p' "$OUT/compile.log")
        [ -z "$PACKING" ] && PACKING=$(sed -n 's/^fastest packing: //p' "$OUT/compile.log")
      else
        echo "compile: no fastest setting (cut short?)" >&2
      fi
      echo "COMPILE=${COMPILE:-false} PACKING=${PACKING:-null}"
      ;;
    recipe)
      minutes=${RECIPE_MINUTES:-8}
      stage $(( minutes * 60 + 120 )) recipe "${GPU_RECIPE[@]}" "train_seq2seq.trainer.budget_minutes=$minutes" \
        "train_seq2seq.trainer.attention_kernels=${KERNELS:-null}" \
        "train_seq2seq.trainer.attention_packing=${PACKING:-null}" "train_seq2seq.trainer.compile=${COMPILE:-false}"
      python3 docs/scripts/gpu_runs.py roofline "$WORK/recipe.yaml" artifacts/splits artifacts/tokenizer \
        "$WORK/recipe/reports"
      ;;
    variants)
      IFS=';' read -ra variants <<< "${VARIANTS:?VARIANTS: settings of each variant, a ';' between}"
      for i in "${!variants[@]}"; do
        echo "variant $i: ${variants[i]}"
        # shellcheck disable=SC2086  # a variant is a list of words
        stage $(( ${RECIPE_MINUTES:-8} * 60 + 120 )) "variant$i" "${GPU_RECIPE[@]}" ${variants[i]} \
          "train_seq2seq.trainer.budget_minutes=${RECIPE_MINUTES:-8}" \
          "train_seq2seq.trainer.attention_kernels=${KERNELS:-null}" \
          "train_seq2seq.trainer.attention_packing=${PACKING:-null}" "train_seq2seq.trainer.compile=${COMPILE:-false}"
        python3 docs/scripts/gpu_runs.py roofline "$WORK/variant$i.yaml" artifacts/splits artifacts/tokenizer \
          "$WORK/variant$i/reports"
      done
      ;;
    evaluate)
      rm -rf "$WORK/recipe/eval"
      python3 -m pipeline.evaluate --params "$WORK/recipe.yaml" --model "$WORK/recipe/model" --data artifacts/splits \
        --out "$WORK/recipe/eval" 2>&1 | tail -n 3
      echo "recipe evaluate: $(tr -d '\n ' < "$WORK/recipe/eval/metrics.json" | cut -c 1-600)"
      ;;
    budget)
      stage 240 transformer-2min "${TRANSFORMER[@]}" train_seq2seq.trainer.budget_minutes=2 \
        "train_seq2seq.trainer.attention_kernels=${KERNELS:-null}" \
        "train_seq2seq.trainer.attention_packing=${PACKING:-null}"
      ;;
    bench)
      set_attention=()
      [ -n "$KERNELS" ] && set_attention+=(--set "trainer.attention_kernels=$KERNELS")
      [ -n "$PACKING" ] && set_attention+=(--set "trainer.attention_packing=$PACKING")
      # Not COMPILE: the bench's recipe run is some 30 updates, which compiling would outlast.
      timeout 300 python3 -m attention_lab.cli bench --corpus data/fra-eng.zip \
        ${set_attention[@]+"${set_attention[@]}"} > "$OUT/bench.json" 2> "$WORK/bench.err"
      echo "bench: exit $?"
      tail -n 5 "$WORK/bench.err"
      python3 -c "import json; r = json.load(open('$OUT/bench.json')); print({k: {m: r[k].get(m) for m in
        ('tokens_per_s', 'fraction_of_peak', 'ceiling_fraction_of_peak', 'updates')} for k in ('seed', 'default',
        'transformer', 'gpu_recipe') if k in r}, r['matmul_peak_gflops'], r['seconds'])"
      ;;
    smoke) timeout 300 python3 docs/scripts/gpu_runs.py smoke "$WORK/smoke" 2>&1 | grep -v "^\s*$" | tail -n 12 ;;
    *) echo "unknown phase $phase: step, compile, recipe, variants, evaluate, budget, bench or smoke" >&2; exit 2 ;;
  esac
  echo "== $phase: $(( $(date +%s) - start )) s"
done

#!/usr/bin/env bash
# Tier-gpu run of `vllm-preflight verify` on one GPU (sized for one H200: < 8 minutes).
#
#   bench/verify_gpu.sh [OUTDIR]   (default $TMPDIR/vllm-preflight-verify-gpu; PYTHON=python3.12 to pick one)
#
# Checks first what it needs (Python >= 3.10, torch with CUDA and a visible GPU, click, rich,
# jsonschema, PyYAML, and vllm_preflight itself, installed or from ./src) and says what is
# missing (exit 3) instead of installing anything: GPU nodes may have another Python and torch
# and no network. Then four verify runs, each under a time limit, and a short table last:
#   ht-piecewise      DeepEP-HT dp8, pr29558, PIECEWISE          -> must pass (0)
#   ht-default        DeepEP-HT dp8, pr29558, FULL_AND_PIECEWISE -> must fail (1): FULL graph holds HT
#   ll-default        DeepEP-LL dp8, 0.13.0, FULL_AND_PIECEWISE  -> must pass (0): capturable all2all
#   ht-release        DeepEP-HT dp8, newest release              -> nothing captured (0)
# Exit: 0 every run ended as expected, 1 one did not, 3 something needed is missing.
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-${TMPDIR:-/tmp}/vllm-preflight-verify-gpu}"  # records and logs (outside the checkout)
PY="${PYTHON:-python3}"
PER_RUN_S="${PER_RUN_S:-110}"
mkdir -p "$OUT"
cd "$ROOT" || exit 3

missing=()
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "verify_gpu: missing: a Python interpreter ($PY); set PYTHON=..." >&2
    exit 3
fi
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || missing+=("Python >= 3.10 (found $("$PY" -V 2>&1))")
probe=$("$PY" - <<'PY' 2>&1
import importlib, sys
out = []
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.version.cuda)
    if not torch.cuda.is_available():
        out.append("a visible CUDA GPU (torch.cuda.is_available() is False; CPU-only torch build?)" if torch.version.cuda is None
                   else "a visible CUDA GPU (torch.cuda.is_available() is False)")
    else:
        print("gpu", torch.cuda.get_device_name(0), "count", torch.cuda.device_count())
except Exception as e:
    out.append(f"torch with CUDA ({type(e).__name__}: {e})")
for mod, pkg in (("click", "click"), ("rich", "rich"), ("jsonschema", "jsonschema"), ("yaml", "PyYAML")):
    try:
        importlib.import_module(mod)
    except Exception:
        out.append(pkg)
for m in out:
    print("MISSING", m)
PY
)
echo "$probe" | grep -v '^MISSING'
while IFS= read -r line; do missing+=("${line#MISSING }"); done < <(echo "$probe" | grep '^MISSING')

# vllm_preflight: the installed one, else this checkout's src/ (no install needed)
if ! "$PY" -c 'import vllm_preflight' >/dev/null 2>&1; then
    export PYTHONPATH="$ROOT/src${PYTHONPATH:+:$PYTHONPATH}"
    "$PY" -c 'import vllm_preflight' >/dev/null 2>&1 || missing+=("vllm_preflight (pip install -e . or run from a checkout)")
fi
if ((${#missing[@]})); then
    if [ ${#missing[@]} -eq 1 ] && [[ "${missing[0]}" == "a visible CUDA GPU"* ]]; then
        # Everything but the GPU is here: show the CPU-side part (resolution and plan), which
        # ends in verify's own exit 3 naming what is missing.
        "$PY" -m vllm_preflight verify examples/deepep-ht-dp8-piecewise.sh --target pr29558 --tier gpu
        echo "verify_gpu: verify exited $? (3: no GPU here)" >&2
    fi
    echo "verify_gpu: cannot run here; missing:" >&2
    for m in "${missing[@]}"; do echo "  - $m" >&2; done
    exit 3
fi

runs=()
verify() {  # NAME EXPECTED_EXIT ARGS...
    local name=$1 want=$2; shift 2
    echo "=== $name (expect exit $want): verify $*"
    local start=$SECONDS
    timeout --signal=TERM --kill-after=20 "$PER_RUN_S" "$PY" -m vllm_preflight verify "$@" --tier gpu \
        --output "$OUT/$name.json" --record "$OUT/records" >"$OUT/$name.log" 2>&1
    local rc=$?
    [ $rc -eq 124 ] && echo "    timed out after ${PER_RUN_S}s"
    echo "    exit $rc in $((SECONDS - start))s; log: $OUT/$name.log"
    grep -E '^ *(FAIL|WARN|CAUGHT) |^Capture sizes' "$OUT/$name.log" | cut -c1-160 | sed 's/^/    /'
    runs+=("$name=$want:$rc")
}

verify ht-piecewise 0 examples/deepep-ht-dp8-piecewise.sh --target pr29558
verify ht-default   1 examples/deepep-ht-dp8.sh --target pr29558
verify ll-default   0 examples/verify-deepep-ll-dp8.sh --vllm-version 0.13.0
verify ht-release   0 examples/deepep-ht-dp8.sh

"$PY" "$ROOT/bench/verify_gpu_table.py" "$OUT" "${runs[@]}"

#!/usr/bin/env bash
# Tier-gpu runs of `vllm-preflight verify` on one GPU, sized to end within 8 minutes on one H200.
#
#   bench/verify_gpu.sh [OUTDIR]   (default $TMPDIR/vllm-preflight-verify-gpu; PYTHON=python3.12 to pick one)
#
# Checks first what it needs (Python >= 3.10, torch with CUDA and a visible GPU, click, rich,
# jsonschema, PyYAML, and vllm_preflight itself, installed or from ./src) and says what is
# missing (exit 3) instead of installing anything: GPU nodes may have another Python and torch
# and no network. Then four verify runs, each under a hard time limit, and two tables last
# (timings eager | piecewise | full per size, then the outcome of every run):
#   ht-piecewise  DeepEP-HT dp8, pr29558, PIECEWISE          -> must pass (0); where vLLM is
#                 importable it also runs the node's own vLLM: R1 (create_engine_config vs the
#                 port), S1 (its split_graph vs verify's), G4 (its CUDAGraphWrapper)
#   ht-default    DeepEP-HT dp8, pr29558, FULL_AND_PIECEWISE -> must fail (1): FULL graph holds HT
#   ll-default    DeepEP-LL dp8, 0.13.0, FULL_AND_PIECEWISE  -> must pass (0): capturable all2all
#   ht-release    DeepEP-HT dp8, newest release              -> nothing captured (0)
#
# Time budget (the whole script stays under 8 minutes by construction): each run has a hard
# limit (`timeout`, then SIGKILL 10 s later) and a smaller `--time-budget` inside which verify
# cuts its optional steps (timings, vLLM's own wrapper) and reports what it cut:
#   run            limit  --time-budget
#   ht-piecewise   150 s  120 s   (R1 gets at most half the budget; S1, G4 only where vLLM is)
#   ht-default     100 s   70 s
#   ll-default     120 s   90 s   (two graph kinds: the most captures)
#   ht-release      40 s   30 s
#   sum of limits  410 s + 40 s of kill grace + ~15 s for the checks below = 465 s < 480 s.
# Expected on one H200 (an estimate, not measured yet): 50-75 s per capturing run without vLLM
# installed, ~3.5 minutes in all; the final line prints the time taken.
# Exit: 0 every run ended as expected, 1 one did not, 3 something needed is missing.
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-${TMPDIR:-/tmp}/vllm-preflight-verify-gpu}"  # records and logs (outside the checkout)
PY="${PYTHON:-python3}"
mkdir -p "$OUT"
cd "$ROOT" || exit 3
START=$SECONDS

missing=()
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "verify_gpu: missing: a Python interpreter ($PY); set PYTHON=..." >&2
    exit 3
fi
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || missing+=("Python >= 3.10 (found $("$PY" -V 2>&1))")
probe=$("$PY" - <<'PY' 2>&1
import importlib, importlib.util, sys
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
print("vllm", "importable" if importlib.util.find_spec("vllm") else "not installed (R1/S1/G4 are skipped)")
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
verify() {  # NAME EXPECTED_EXIT LIMIT_S BUDGET_S ARGS...
    local name=$1 want=$2 limit=$3 budget=$4; shift 4
    echo "=== $name (expect exit $want, limit ${limit}s, budget ${budget}s): verify $*"
    local start=$SECONDS
    timeout --signal=TERM --kill-after=10 "$limit" "$PY" -m vllm_preflight verify "$@" --tier gpu \
        --time-budget "$budget" --output "$OUT/$name.json" --record "$OUT/records" >"$OUT/$name.log" 2>&1
    local rc=$?
    [ $rc -eq 124 ] && echo "    timed out after ${limit}s"
    echo "    exit $rc in $((SECONDS - start))s; log: $OUT/$name.log"
    grep -E '^ *(FAIL|WARN|CAUGHT|SKIP) |^Capture sizes' "$OUT/$name.log" | cut -c1-160 | sed 's/^/    /'
    runs+=("$name=$want:$rc")
}

verify ht-piecewise 0 150 120 examples/deepep-ht-dp8-piecewise.sh --target pr29558 --node-vllm auto
verify ht-default   1 100  70 examples/deepep-ht-dp8.sh --target pr29558 --node-vllm off
verify ll-default   0 120  90 examples/verify-deepep-ll-dp8.sh --vllm-version 0.13.0 --node-vllm off
verify ht-release   0  40  30 examples/deepep-ht-dp8.sh --node-vllm off

"$PY" "$ROOT/bench/verify_gpu_table.py" "$OUT" "${runs[@]}"
rc=$?
echo "verify_gpu: $((SECONDS - START))s in all (budget 480s)"
exit $rc

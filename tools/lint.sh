#!/usr/bin/env bash
# The repository's own lint and types: ruff (default rules + import order) and mypy, over
# src/ and tools/, with the settings in pyproject.toml. Exit status non-zero on any finding.
#   pip install -e '.[lint]' && tools/lint.sh
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
ruff check src tools || status=1
mypy src tools || status=1
exit $status

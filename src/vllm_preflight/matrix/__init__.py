"""`vllm-preflight matrix`: one deployment across every release, or every combination of a few
settings, in one table — with what an upgrade changes (`--vs`), how to get CUDA graphs back
(`--advise`) and which cells hardware records cover (`--records`).

Modules, one job each: `targets` (which releases), `axes` (the settings a combination varies and
how a cell is written for a release), `cells` (driving the resolver, with the exact shortcuts),
`validation` (the schema findings, memoised per option value), `outcome` (what a row shows),
`fold` (identical neighbours into ranges), `table` (the folded table every renderer draws),
`diff` (`--vs`), `advise`, `records`, `render/` (text, markdown, html, csv, json) and `command`
(the click command).
"""

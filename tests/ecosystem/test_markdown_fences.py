"""Markdown inputs: fenced code blocks found the CommonMark way (markdown-it-py)."""
from __future__ import annotations

from click.testing import CliRunner

from vllm_preflight.cli import cli
from vllm_preflight.load.markdown import load_markdown, markdown_shell
from vllm_preflight.load.source import Source

# A README that documents how to write a README: the ````markdown block shows a ```bash
# example. CommonMark closes a fence only on one at least as long, so the inner ``` does not
# end the outer block; the hand-written scanner ended it there, read the prose after it as
# shell (its backquotes: "unterminated backquote", exit 2) and missed the real server.
NESTED = """# Writing deployment docs

Show the command in a fenced block, like this:

````markdown
```bash
vllm serve example/doc-only -tp 2
```
````

The `vllm serve` below is the one we run:

```bash
vllm serve deepseek-ai/DeepSeek-V3 -dp 8 --enable-expert-parallel
```
"""


def test_a_four_backtick_fence_is_not_closed_by_three():
    [d] = load_markdown(Source("GUIDE.md", NESTED))
    assert d.argv == ("vllm", "serve", "deepseek-ai/DeepSeek-V3", "-dp", "8", "--enable-expert-parallel")
    assert (d.location.line, d.location.column) == (14, 1)


def test_check_reads_the_nested_example_readme(tmp_path):
    path = tmp_path / "GUIDE.md"
    path.write_text(NESTED)
    r = CliRunner().invoke(cli, ["check", "--format", "json", str(path)])
    assert r.exit_code in (0, 1), r.output  # not 2: the file is read
    assert '"deepseek-ai/DeepSeek-V3"' in r.output or "DeepSeek-V3" in r.output


def test_blocks_in_lists_and_quotes_keep_their_lines_and_columns():
    text = ("- start it:\n\n  ```bash\n  vllm serve m \\\n    -tp 2\n  ```\n\n"
            "> ```sh\n> vllm serve q\n> ```\n\n    vllm serve indented-code-is-not-a-fence\n")
    masked = markdown_shell(text).split("\n")
    assert masked[3] == "  vllm serve m \\" and masked[4] == "    -tp 2"
    assert masked[8] == "  vllm serve q"  # `> ` blanked, the column kept
    assert "indented" not in "\n".join(masked)
    assert len(masked) == len(text.split("\n"))


def test_only_shell_languages_and_tilde_fences():
    text = "~~~sh\nvllm serve a\n~~~\n\n```python\nvllm serve b\n```\n\n```bash title=run.sh\nvllm serve c\n```\n"
    ds = load_markdown(Source("x.md", text))
    assert [d.argv[2] for d in ds] == ["a", "c"]


def test_an_unclosed_fence_runs_to_the_end_of_the_file():
    [d] = load_markdown(Source("x.md", "Intro\n\n```bash\nvllm serve m -tp 2\n"))
    assert d.argv == ("vllm", "serve", "m", "-tp", "2")

"""Where vLLM reads a model's config from, besides config.json: --hf-config-path, --tokenizer's
tokenizer_config.json, the Mistral format's params.json; and what is not read (GGUF, ModelScope)."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from vllm_preflight.cli import cli

HUB_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hub"


def _check(*words: str, env: tuple[str, ...] = ()) -> dict:
    opts = [x for e in env for x in ("--env", e)]
    out = CliRunner().invoke(cli, ["check", "--format", "json", *opts, "--", "vllm", "serve", *words])
    assert out.exit_code in (0, 1), out.output
    return json.loads(out.stdout)["results"][0]


def _write(folder: Path, files: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, value in files.items():
        (folder / name).write_text(value if isinstance(value, str) else json.dumps(value))
    return folder


def _source(res: dict, fact: str = "model") -> str:
    return next(a["source"] for a in res["assumptions"] if a["fact"] == fact)


def test_hf_config_path_is_where_the_config_is_read(tmp_path):
    weights = _write(tmp_path / "weights", {"config.json": {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                                                            "max_position_embeddings": 2048}})
    res = _check(str(weights), "--hf-config-path", str(HUB_FIXTURES / "qwen3-30b-a3b-gptq-int4"),
                 "-dp", "2", "--enable-expert-parallel")
    assert res["vllm_error"] is None and "qwen3-30b-a3b-gptq-int4" in _source(res)


def test_tokenizer_length_caps_a_pooling_model_with_absolute_positions(tmp_path):
    model = _write(tmp_path / "m", {"config.json": json.loads((HUB_FIXTURES / "all-minilm-l6-v2" / "config.json")
                                                              .read_text())})
    tok = _write(tmp_path / "tok", {"tokenizer_config.json": {"model_max_length": 128}})
    assert _check(str(model), "--max-model-len", "512")["vllm_error"] is None
    res = _check(str(model), "--tokenizer", str(tok), "--max-model-len", "512")
    assert res["vllm_error"] is not None and "max_model_len (512)" in res["vllm_error"]["message"]


def test_mistral_format_reads_params_json(tmp_path):
    params = {"dim": 4096, "n_layers": 32, "n_heads": 32, "n_kv_heads": 8, "hidden_dim": 14336, "norm_eps": 1e-5,
              "vocab_size": 32768, "rope_theta": 1000000.0, "moe": {"num_experts": 8, "num_experts_per_tok": 2}}
    folder = _write(tmp_path / "mixtral", {"params.json": params, "consolidated.safetensors": "",
                                           "config.json": {"architectures": ["MistralForCausalLM"],
                                                           "model_type": "mistral"}})
    ep = ("-dp", "2", "--enable-expert-parallel")
    assert _check(str(folder), *ep)["vllm_error"] is None  # auto: a consolidated repo with params.json
    assert "params.json" in _source(_check(str(folder), "--config-format", "mistral"))
    # `--config-format hf` reads config.json: a dense model refuses expert parallelism
    assert _check(str(folder), "--config-format", "hf", *ep)["vllm_error"] is not None


def test_gguf_and_modelscope_are_said_not_read(tmp_path):
    gguf = _check(str(tmp_path / "model-q4.gguf"), "--tokenizer", "Qwen/Qwen3-8B")
    assert any(f["rule"] == "VP130" and "GGUF" in f["message"] for f in gguf["findings"])
    ms = _check("Qwen/Qwen3-8B", env=("VLLM_USE_MODELSCOPE=True",))
    assert any(f["rule"] == "VP130" and "ModelScope" in f["message"] for f in ms["findings"])
    assert "table of well-known" in _source(ms)


def test_only_the_repo_colon_quant_shape_is_a_remote_gguf():
    """vLLM's is_remote_gguf takes `repo_id:quant_type` only; a colon elsewhere (a script's
    `${1:?usage}` placeholder standing for the model) is an unknown model, not a GGUF."""
    remote = _check("unsloth/Qwen3-0.6B-GGUF:Q4_K_M")
    assert any(f["rule"] == "VP130" and "GGUF" in f["message"] for f in remote["findings"])
    for word in ("${1:?usage}", "${MODEL?usage: give MODEL}"):
        out = _check(word)
        assert not any("GGUF" in f["message"] for f in out["findings"]), out["findings"]
        assert any(a["fact"] == "model.is_moe" and "unknown model" in a["source"] for a in out["assumptions"])


def test_when_auto_reads_params_json_changed_per_release(tmp_path):
    """A folder with both files and no consolidated weights: 0.11.x reads config.json, 0.12.0-0.15.x
    params.json, 0.16.0+ config.json again (each release's transformers_utils/config.py)."""
    params = {"dim": 4096, "n_layers": 32, "n_heads": 32, "n_kv_heads": 8, "hidden_dim": 14336, "norm_eps": 1e-5,
              "vocab_size": 32768, "moe": {"num_experts": 8, "num_experts_per_tok": 2}}
    folder = _write(tmp_path / "both", {"params.json": params, "config.json": {"architectures": ["MistralForCausalLM"],
                                                                               "model_type": "mistral"}})
    for version, reads_params in (("0.11.2", False), ("0.12.0", True), ("0.15.1", True), ("0.16.0", False)):
        out = CliRunner().invoke(cli, ["check", "--format", "json", "--vllm-version", version, "--", "vllm", "serve",
                                       str(folder)])
        res = json.loads(out.stdout)["results"][0]
        assert ("params.json" in _source(res)) == reads_params, (version, _source(res))


def test_a_speculators_checkpoint_is_looked_up_at_the_servers_revision(tmp_path, monkeypatch):
    """maybe_override_with_speculators reads config.json at --revision: a repo whose `main` is a
    speculators checkpoint and whose `v1` is a plain model serves a verifier at main only (it was
    looked up at main whatever the revision, and online fetched main besides the revision)."""
    models = Path(__file__).resolve().parents[1] / "fixtures" / "models"
    repo = tmp_path / "hub" / "models--acme--spec"
    (repo / "refs").mkdir(parents=True)
    for ref, commit, folder in (("main", "a" * 40, "spec-fmt-eagle3-llama-hub"), ("v1", "b" * 40, "llama-dense")):
        (repo / "refs" / ref).write_text(commit)
        snap = repo / "snapshots" / commit
        snap.mkdir(parents=True)
        (snap / "config.json").write_text((models / folder / "config.json").read_text())
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))

    def served(*words: str) -> list[str]:
        out = CliRunner().invoke(cli, ["check", "--offline", "--format", "json", "--vllm-version", "0.29.0", "--",
                                       "vllm", "serve", "acme/spec", *words])
        assert out.exit_code in (0, 1), out.output
        return [str(a["value"]) for a in json.loads(out.stdout)["results"][0]["assumptions"]
                if a["fact"] == "speculative_config.model"]

    assert served() and served()[0].endswith("acme/spec")
    assert served("--revision", "v1") == []


def test_a_draft_model_is_looked_up_at_the_speculative_configs_revision(tmp_path, monkeypatch):
    """SpeculativeConfig builds the draft's ModelConfig with its own `revision`: a draft cached at
    `v1` only is read when the speculative config names v1, and is not at the default branch."""
    models = Path(__file__).resolve().parents[1] / "fixtures" / "models"
    repo = tmp_path / "hub" / "models--acme--draft"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "v1").write_text("c" * 40)
    (repo / "snapshots" / ("c" * 40)).mkdir(parents=True)
    (repo / "snapshots" / ("c" * 40) / "config.json").write_text((models / "llama-dense" / "config.json").read_text())
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))

    def draft_source(spec: dict) -> str:
        out = CliRunner().invoke(cli, ["check", "--offline", "--format", "json", "--", "vllm", "serve",
                                       "meta-llama/Llama-3.1-8B-Instruct", "--speculative-config", json.dumps(spec)])
        assert out.exit_code in (0, 1), out.output
        return next(a["source"] for a in json.loads(out.stdout)["results"][0]["assumptions"]
                    if a["fact"] == "speculative_config.model")

    spec = {"model": "acme/draft", "num_speculative_tokens": 2}
    assert draft_source({**spec, "revision": "v1"}).startswith("draft config read from")
    assert draft_source(spec).startswith("not checked")

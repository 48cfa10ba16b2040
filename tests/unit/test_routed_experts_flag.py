"""`--enable-return-routed-experts` turns the AuxOutput connector on (EngineArgs copies the flag into
aux_output_config: 0.31.0 engine/arg_utils.py:853-854, 0.33.0 :890-891), so VllmConfig's AuxOutput
checks apply to it as to `--aux-output-config` (0.33.0 config/vllm.py:1187-1208: generate runners
and MoE models only). Before 0.31.0 there is no AuxOutput config and the flag refuses nothing here."""
from __future__ import annotations

from compare import MODELS

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve


def _error(model: str, target: str, *words: str):
    argv = ("vllm", "serve", str(MODELS / model), "--enable-return-routed-experts") + words
    return resolve(Deployment(argv=argv, env=(), source="t"), target).vllm_error


def test_the_flag_on_a_dense_model_is_refused_from_0_31():
    err = _error("llama-dense", "0.33.0")
    assert err is not None and "AuxOutput Connector only supports MoE models." in err.message
    assert "only supports MoE models" in _error("llama-dense", "0.31.0").message


def test_the_flag_on_a_moe_model_passes_and_older_releases_do_not_check_it():
    assert _error("mixtral-moe", "0.33.0") is None
    assert _error("llama-dense", "0.30.0") is None

"""`arch_support`: the registry facts recorded per release (releases/data/architectures.json,
extracted from vLLM's sources by tools/extract_arch_facts.py and checked there against the real
registry of 0.12.0 and 0.33.0), and the pipeline-parallel check built on them."""
from __future__ import annotations

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.releases import architectures as A
from vllm_preflight.releases.architectures import ArchSupport, arch_support
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.model.verify_with_parallel_config import PP_UNSUPPORTED


def test_every_release_is_recorded():
    assert {"0.11.0", "0.12.0", "0.20.0", "0.33.0"} <= A.recorded_releases()
    assert len(A.recorded_releases()) == 35


@pytest.mark.parametrize("version", ["0.11.0", "0.12.0", "pr29558", "0.33.0"])
def test_llama_supports_everything_but_multimodal(version):
    # LlamaForCausalLM(nn.Module, SupportsLoRA, SupportsPP, SupportsEagle...) in every release
    assert arch_support(version, "LlamaForCausalLM") == ArchSupport(True, True, False, True)


@pytest.mark.parametrize("version", ["0.12.0", "0.33.0"])
def test_whisper_has_no_pp(version):
    # WhisperForConditionalGeneration: SupportsTranscription, SupportsMultiModal, no SupportsPP
    s = arch_support(version, "WhisperForConditionalGeneration")
    assert s is not None and s.registered and not s.supports_pp and s.is_multimodal


def test_pooling_encoders_have_no_pp_and_vl_models_are_multimodal():
    assert arch_support("0.12.0", "BertModel") == ArchSupport(True, False, False, False)
    qwen2vl = arch_support("0.33.0", "Qwen2VLForConditionalGeneration")
    assert qwen2vl is not None and qwen2vl.supports_pp and qwen2vl.is_multimodal


def test_pr29558_is_its_base_release():
    for arch in ("LlamaForCausalLM", "WhisperForConditionalGeneration", "Mamba2ForCausalLM"):
        assert arch_support("pr29558", arch) == arch_support("0.12.0", arch)


def test_unknown_answers_none_and_unregistered_says_so():
    assert arch_support("0.12.0", "NoSuchModelForCausalLM") is None
    assert arch_support("0.10.0", "LlamaForCausalLM") is None  # release not recorded
    # Phi4MultimodalForCausalLM: registered until 0.12.0 (vLLM lists it as previously supported)
    later = arch_support("0.33.0", "Phi4MultimodalForCausalLM")
    assert later is not None and not later.registered
    assert arch_support("0.12.0", "Phi4MultimodalForCausalLM").registered


def test_pp_check_refuses_a_class_without_supportspp(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text('{"architectures": ["WhisperForConditionalGeneration"], '
                                                 '"model_type": "whisper", "decoder_attention_heads": 4, '
                                                 '"d_model": 256, "is_encoder_decoder": true}')
    dep = Deployment(argv=("vllm", "serve", str(tmp_path / "m"), "-pp", "2"))
    res = resolve(dep, "0.12.0")
    assert res.vllm_error is not None and res.vllm_error.type == "NotImplementedError"
    assert res.vllm_error.message == PP_UNSUPPORTED
    dep1 = Deployment(argv=("vllm", "serve", str(tmp_path / "m"), "-pp", "1"))
    assert resolve(dep1, "0.12.0").vllm_error is None


def test_pp_check_skips_an_unknown_architecture_and_says_so(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text('{"architectures": ["NoSuchModelForCausalLM"], '
                                                 '"num_attention_heads": 8}')
    res = resolve(Deployment(argv=("vllm", "serve", str(tmp_path / "m"), "-pp", "2")), "0.12.0")
    assert res.vllm_error is None
    assert any(a.fact == "model.supports_pp" and "NoSuchModelForCausalLM" in a.source for a in res.assumptions)


def test_releases_where_pp_support_changes():
    # deepseek_mtp.py: DeepSeekMTP(nn.Module, SupportsPP) through 0.13.0, SupportsPP dropped in
    # 0.14.0, back in 0.30.0 (confirmed on the real 0.30.0 registry); glm4_moe_mtp.py drops it in 0.14.0
    pp = {v: arch_support(v, "DeepSeekMTPModel").supports_pp for v in ("0.13.0", "0.14.0", "0.29.0", "0.30.0")}
    assert pp == {"0.13.0": True, "0.14.0": False, "0.29.0": False, "0.30.0": True}
    assert arch_support("0.13.0", "Glm4MoeMTPModel").supports_pp
    assert not arch_support("0.33.0", "Glm4MoeMTPModel").supports_pp


def test_registry_class_converts_an_unregistered_pooling_name_to_its_base():
    # vLLM's suffix table: *ForSequenceClassification -> pooling/classify; the base is *ForCausalLM
    assert A.registry_class("0.12.0", "LlamaForSequenceClassification") == "LlamaForCausalLM"
    assert A.registry_class("0.12.0", "BertModel") == "BertModel"  # registered: itself
    # a generative name that is not registered goes to the Transformers backend first: unknown here
    assert A.registry_class("0.12.0", "NoSuchModelForCausalLM") is None
    assert A.registry_class("0.12.0", "NoSuchModelForCausalLM", model_impl="vllm") is None


def test_extractor_follows_bases_aliases_and_adapters(tmp_path):
    """tools/extract_arch_facts.py on a miniature source tree: interfaces reached through
    imports, a subclass in another module, an alias, an adapter call, a class whose forward
    takes no intermediate tensors, and one that only defines the PP attributes."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import extract_arch_facts as X

    models = tmp_path / "vllm" / "model_executor" / "models"
    models.mkdir(parents=True)
    (tmp_path / "vllm" / "__init__.py").write_text("")
    (models / "interfaces.py").write_text(
        "class SupportsPP(Protocol):\n    supports_pp = True\n"
        "    def make_empty_intermediate_tensors(self, b, d, dev): ...\n"
        "    def forward(self, *, intermediate_tensors): ...\n"
        "class SupportsLoRA(Protocol):\n    supports_lora = True\n    embedding_modules = {}\n"
        "    packed_modules_mapping = {}\n"
        "class SupportsMultiModal(Protocol):\n    supports_multimodal = True\n")
    (models / "base.py").write_text(
        "from torch import nn\nfrom .interfaces import SupportsPP, SupportsLoRA\n"
        "class Base(nn.Module, SupportsLoRA, SupportsPP):\n"
        "    def forward(self, input_ids, positions, intermediate_tensors=None): ...\n"
        "class NoKw(nn.Module, SupportsPP):\n    def forward(self, input_ids): ...\n"
        "class AttrsOnly(nn.Module):\n    def make_empty_intermediate_tensors(self): ...\n"
        "    def forward(self, x, **kwargs): ...\n")
    (models / "child.py").write_text(
        "from vllm.model_executor.models.base import Base\n"
        "from . import interfaces as itf\nfrom .adapters import as_seq_cls_model\n"
        "class Vision(Base, itf.SupportsMultiModal):\n    pass\n"
        "Alias = Vision\nSeqCls = as_seq_cls_model(Base)\n")
    (models / "registry.py").write_text(
        "_A = {'BaseLM': ('base', 'Base'), 'NoKwLM': ('base', 'NoKw')}\n"
        "_B = {'VisionLM': ('child', 'Alias'), 'Cls': ('child', 'SeqCls'), 'Attrs': ('base', 'AttrsOnly'),\n"
        "      'Gone': ('missing', 'Nothing')}\n"
        "_VLLM_MODELS = {**_A, **_B}\n")
    facts = X.release_facts(tmp_path)
    assert facts == {"BaseLM": "PL", "NoKwLM": "", "VisionLM": "PLM", "Cls": "PL", "Attrs": "", "Gone": None}

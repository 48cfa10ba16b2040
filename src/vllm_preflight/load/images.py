"""Container images that run vLLM: which images are vLLM's, the version a tag names, and the
program an image runs before its args (its entrypoint).
"""
from __future__ import annotations

import re

from vllm_preflight.load.shell_expand import TWord
from vllm_preflight.load.symbols import lit, literal
from vllm_preflight.model import Assumption, Location

SERVER_MODULES = ("vllm.entrypoints.openai.api_server",)

_IMAGE = re.compile(r"^(?:(?P<registry>[^/]+\.[^/]+|localhost(?::\d+)?)/)?(?P<repo>[^:@]+)(?::(?P<tag>[^@]+))?(?:@.+)?$")
_NOT_SERVER_IMAGE = re.compile(r"router|sidecar|proxy|bench|gateway|scheduler|epp|operator|client")
# a PEP 440 version (pre/post/dev parts too: `v0.11.0rc1`, `v0.13.0.post1`) leading the tag, then
# its end or a build suffix (`-cu129`, `-nixl-0.7.1-cu128`, `.self.post1`); api.choose_release maps
# the version to the release it belongs to
_VERSION_TAG = re.compile(r"^v?(\d+\.\d+(?:\.\d+){0,2}(?:(?:a|b|rc|\.post|\.dev)\d+)*)(?:$|(?P<suffix>[-+_.].*))")
# suffixes that name the CUDA/ROCm build of the same release, not a change of its code
_BUILD_VARIANT = re.compile(r"^[-+_](?:cu\d+|rocm[\d.]*|cpu|xpu|tpu|hpu|arm64|amd64|aarch64|x86_64)$")


def image_entrypoint(args: list[TWord], loc: Location | None) -> tuple[list[TWord], Assumption]:
    """The program a vLLM image runs before its args.

    vllm/vllm-openai's entrypoint moved from `python3 -m vllm.entrypoints.openai.api_server`
    to `vllm serve`; args that name the model with `--model` were written for the former,
    a positional model for the latter, so the args choose.
    """
    first = literal(args[0].text) if args else None
    if first is not None and first.startswith("-"):
        head = [TWord(lit("python3"), loc), TWord(lit("-m"), loc), TWord(lit(SERVER_MODULES[0]), loc)]
        return head, Assumption("entrypoint", "python3 -m " + SERVER_MODULES[0],
                                "the image's entrypoint, for args that start with a flag (`--model ...`)")
    head = [TWord(lit("vllm"), loc), TWord(lit("serve"), loc)]
    return head, Assumption("entrypoint", "vllm serve", "the image's entrypoint, for args that start with the model")


def is_vllm_image(image: str) -> bool:
    """An image whose entrypoint is the vLLM server (vllm/vllm-openai and its builds)."""
    m = _IMAGE.match(image.strip())
    if not m:
        return False
    last = m.group("repo").rsplit("/", 1)[-1].lower()
    return last.startswith("vllm") and not _NOT_SERVER_IMAGE.search(last)


def image_version(image: str) -> str | None:
    """The vLLM version in an upstream vLLM image tag (`vllm/vllm-openai:v0.22.1`), else None.

    Only images of the vLLM project (Docker Hub `vllm/...` or a mirror of `vllm-openai`)
    carry vLLM versions; tags of other products (llm-d, RHAIIS, ROCm builds) do not.
    """
    found = _tag_version(image)
    return found[0] if found else None


def _tag_version(image: str) -> tuple[str, str] | None:
    """(version, suffix) of a vLLM image tag whose leading version is a vLLM version."""
    m = _IMAGE.match(image.strip())
    if not m or not m.group("tag"):
        return None
    repo = m.group("repo").lower()
    registry = (m.group("registry") or "docker.io").lower()
    upstream = (registry in ("docker.io", "index.docker.io", "registry-1.docker.io") and repo.startswith("vllm/")) \
        or repo.rsplit("/", 1)[-1] in ("vllm-openai", "vllm-openai-rocm", "vllm-tpu", "vllm-cpu")
    if not upstream:
        return None
    v = _VERSION_TAG.match(m.group("tag"))
    return (v.group(1), v.group("suffix") or "") if v else None


def version_source(image: str | None) -> str:
    """What a server's version came from, for its assumption: the image, and how a tag with a
    suffix (`v0.10.2-nixl-0.7.1-cu128`, `v0.7.3.self.post1`) was read."""
    found = _tag_version(image) if image else None
    if not found or not found[1] or _BUILD_VARIANT.match(found[1]):
        return f"image {image}"
    return f"image {image} (a custom build `{found[1]}`, read as the vLLM version that leads its tag)"

"""`vllm-preflight schema`: print a JSON Schema."""
from __future__ import annotations

import json

import click


@click.command("schema")
@click.option("--vllm-version", "vllm_version", metavar="V",
              help="Release whose `vllm serve` options to describe (default: the newest supported).")
@click.option("--target", type=click.Choice(["release", "pr29558"]), default="release", show_default=True,
              help="`pr29558`: the PR #29558 design on vLLM 0.12.0.")
@click.option("--deployment-file", "deployment_file", is_flag=True,
              help="Print the schema of vllm-preflight's own deployment file (*.preflight.yaml) instead.")
@click.option("--path", "show_path", is_flag=True,
              help="Print the path of the schema file shipped in the package (for check-jsonschema "
                   "--schemafile or a YAML language server) instead of the schema.")
def schema(vllm_version, target, deployment_file, show_path) -> None:
    """Print the JSON Schema of a release's `vllm serve` options (what a vLLM --config YAML
    file may hold), generated from the release data; or of the deployment file."""
    from vllm_preflight.api import target_name
    from vllm_preflight.errors import UsageProblem
    from vllm_preflight.schema import shipped

    if deployment_file and show_path:
        click.echo(str(shipped.JSON_DIR / shipped.DEPLOYMENT_FILE))
        return
    if deployment_file:
        from vllm_preflight.schema.deployment import deployment_schema

        click.echo(json.dumps(deployment_schema(), indent=2))
        return
    try:
        name = target_name(vllm_version, target)
    except UsageProblem as e:
        raise click.UsageError(str(e)) from None
    if show_path:
        click.echo(str(shipped.shipped_path(name)))
        return
    from vllm_preflight.schema.generate import release_schema

    click.echo(json.dumps(release_schema(name), indent=2))

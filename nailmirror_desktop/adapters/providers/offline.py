"""The offline provider: the project's own procedural renderer behind the provider port.

No network, no key: the kiosk's default. The prompt is parsed into a design (core/generation/prompt_parser.py)
and rendered into per-finger nail textures plus a preview card (artwork/render.py); deterministic for a prompt
and seed.
"""

from __future__ import annotations

from nailmirror_desktop.core.generation.provider_port import GenerationRequest, ProviderResult


class OfflineProvider:
    name = "offline"
    is_async = False

    def __repr__(self) -> str:
        return "OfflineProvider()"

    def generate(self, request: GenerationRequest) -> ProviderResult:
        from nailmirror_desktop.artwork.render import render_design
        from nailmirror_desktop.core.generation.flow import default_seed
        from nailmirror_desktop.core.generation.prompt_parser import parse_prompt
        from nailmirror_desktop.core.generation.variations import vary_design

        design = vary_design(parse_prompt(request.original_text), request.version)
        seed = default_seed(request.original_text) if request.seed is None else request.seed
        rendered = render_design(design, seed)
        return ProviderResult(rendered=rendered, provider=self.name, details={"seed": seed})

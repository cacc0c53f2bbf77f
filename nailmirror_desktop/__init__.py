"""NailMirror (指尖魔镜) — in-store nail try-on kiosk."""

__version__ = "0.1.0"

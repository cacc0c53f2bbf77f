"""What a kept image must not show: faces found (faces.py) and blurred before a capture is kept (capture.py)."""

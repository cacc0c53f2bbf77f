"""Where frames come from: cameras (chosen, probed, re-opened), the demo video, image files.

`nailmirror_desktop.vision.sources` was the frame readers' module (now readers.py): its names are re-exported
here, so an import by the old path keeps working."""

from nailmirror_desktop.vision.sources.readers import *  # noqa: F403

"""Settings: camera, resolution, mirroring, idle timeout, how long snapshots are kept, language, the currency of
style prices (core.config; the review page takes a new one at once), a new
staff PIN (core.staff_pin: only with the current PIN, which counts towards the lockout) and the image
provider with its API key (core.providers.config). The key is never shown back: only whether one is set and
its last four characters; typing a new one replaces it, leaving the box empty keeps it. The store's time zone and
the price per image (credit_settings.py) are saved with the rest and used by the next generation (the credits
page puts them into the running hooks on config_saved): no restart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.core.catalog.price import CURRENCIES
from nailmirror_desktop.core.config import KioskConfig, load_config, save_config
from nailmirror_desktop.core.generation.provider_config import (
    PROVIDER_NAMES,
    ProviderConfig,
    RemoteProviderSettings,
    Secret,
    load_provider_config,
    save_provider_config,
)
from nailmirror_desktop.core.staff_pin import PinFormatError, PinOutcome, StaffPin, check_format
from nailmirror_desktop.ui.shell.messages import provider_text
from nailmirror_desktop.ui.staff.camera_preview import CameraPreview, Feed, PreviewFeeds, qt_camera_devices
from nailmirror_desktop.ui.staff.credit_settings import CreditSettingsBox
from nailmirror_desktop.ui.staff.pin_dialog import wait_text
from nailmirror_desktop.ui.staff.touch_controls import TouchComboBox, TouchSpinBox
from nailmirror_desktop.vision.sources.camera_devices import CameraChoice, CameraDevice, resolve_camera_index

RESOLUTIONS = ((640, 480), (1280, 720), (1920, 1080))
# Read once when the kiosk starts (app/kiosk.py builds the camera, the pipeline and the share server from them).
RESTART_SETTINGS = ("camera", "resolution", "mirror", "hands_tracked", "share_port")


def masked(secret: Secret) -> str:
    """'not set', or '••••' plus the key's last four characters — never more of it."""
    value = secret.reveal()
    return "••••" + value[-4:] if len(value) >= 12 else ("••••" if value else "")


class SettingsPage(QWidget):
    config_saved = Signal(object)  # KioskConfig
    restart_requested = Signal()

    def __init__(self, config: KioskConfig, staff_pin: StaffPin, parent: QWidget | None = None, *,
                 running: KioskConfig | None = None, camera_feeds: PreviewFeeds | None = None,
                 list_cameras: Callable[[], list[CameraDevice]] = qt_camera_devices,
                 hq_time_zone: str | None = None) -> None:
        super().__init__(parent)
        self._config = config
        self._running = running or config  # what this process started with: start-only settings compare to it
        self._staff_pin = staff_pin
        self._providers = load_provider_config()
        layout = QVBoxLayout(self)
        self.form = QFormLayout()
        self._build_camera_part(camera_feeds or PreviewFeeds(), list_cameras)
        self.resolution = TouchComboBox()
        for width, height in RESOLUTIONS:
            self.resolution.addItem(f"{width} × {height}", (width, height))
        self.mirror = QCheckBox()
        self.hands = TouchComboBox()
        self.hands.addItem("1", 1)
        self.hands.addItem("2", 2)
        self.idle = TouchSpinBox(step=10)
        self.idle.setRange(10, 3600)
        self.idle.setSuffix(" s")
        self.keep_days = TouchSpinBox()
        self.keep_days.setRange(1, 365)
        self.language = TouchComboBox()
        self.language.addItem("中文", "zh_CN")
        self.language.addItem("English", "en")
        self.currency = TouchComboBox()  # codes and symbols read the same in both languages
        for unit in CURRENCIES.values():
            self.currency.addItem(f"{unit.code}  {unit.symbol_zh}", unit.code)
        self.provider = TouchComboBox()
        for name in PROVIDER_NAMES:  # shown by name in the UI's language (_retranslate), kept by id
            self.provider.addItem(name, name)
        self.provider.currentIndexChanged.connect(self._show_key_state)
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_state = QLabel()
        self.key_state.setObjectName("muted")
        self.current_pin = QLineEdit()
        self.current_pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.current_pin.setMaxLength(8)
        self.new_pin = QLineEdit()
        self.new_pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.new_pin.setMaxLength(8)
        self.share = QCheckBox()
        self.store_name = QLineEdit()  # on the take-home card and the phone's picture (ui/share)
        self.store_name.setMaxLength(60)
        self.labels = [QLabel() for _ in range(15)]
        rows = [self.camera, self.resolution, self.mirror, self.hands, self.idle, self.keep_days, self.language,
                self.currency, self.share, self.store_name, self.provider, self.api_key, self.key_state,
                self.current_pin, self.new_pin]
        for label, widget in zip(self.labels, rows, strict=True):
            self.form.addRow(label, widget)
        self.form.insertRow(1, self.preview_label, self.preview_box)
        self.save_button = QPushButton()
        self.save_button.setObjectName("primary")
        self.save_button.clicked.connect(self.save)
        self.feedback = QLabel()
        self.feedback.setWordWrap(True)
        self.restart_button = QPushButton()  # shown once a saved setting waits for a restart
        self.restart_button.setMinimumHeight(64)
        self.restart_button.clicked.connect(self.restart_requested)
        self.restart_button.hide()
        layout.addLayout(self.form)
        self.credit_settings = CreditSettingsBox(config, {name: self._providers.settings_for(name).model
                                                          for name in PROVIDER_NAMES if name != "offline"},
                                                 hq_zone=hq_time_zone)
        layout.addWidget(self.credit_settings)
        layout.addWidget(self.save_button)
        layout.addWidget(self.feedback)
        layout.addWidget(self.restart_button)
        layout.addStretch(1)
        self._show_config()
        self._retranslate()

    def _show_config(self) -> None:
        config = self._config
        self.fill_cameras()
        wanted = tuple(config.resolution)
        matches = [i for i in range(self.resolution.count()) if tuple(self.resolution.itemData(i)) == wanted]
        self.resolution.setCurrentIndex(matches[0] if matches else 1)
        self.mirror.setChecked(config.mirror)
        self.hands.setCurrentIndex(max(0, self.hands.findData(config.hands_tracked)))
        self.idle.setValue(config.idle_timeout_s)
        self.keep_days.setValue(config.snapshot_keep_days)
        self.language.setCurrentIndex(max(0, self.language.findData(config.language)))
        self.currency.setCurrentIndex(max(0, self.currency.findData(config.currency)))
        self.share.setChecked(config.share_to_phone)
        self.store_name.setText(config.store_name)
        self.provider.setCurrentIndex(max(0, self.provider.findData(self._providers.default_provider)))
        self._show_key_state()

    # --- the camera: by name, with a live preview (ui/staff/camera_preview.py) ---------------------------------
    def _build_camera_part(self, feeds: PreviewFeeds, list_cameras: Callable[[], list[CameraDevice]]) -> None:
        self._feeds = feeds
        self._list_cameras = list_cameras
        self._devices: list[CameraDevice] = []
        self._preview_token = 0  # an answer for a preview the page no longer waits for is let go
        self._mirror_paused = False
        self._missing: CameraDevice | None = None  # the saved camera, while it is not connected
        self._preview_message: Callable[[], str] | None = None
        self.camera = TouchComboBox()
        self.camera.currentIndexChanged.connect(self._on_camera_change)
        self.preview_label = QLabel()
        self.preview_box = QWidget()
        box = QVBoxLayout(self.preview_box)
        box.setContentsMargins(0, 0, 0, 0)
        self.camera_preview = CameraPreview()
        self.camera_state = QLabel()
        self.camera_state.setObjectName("muted")
        self.camera_state.setWordWrap(True)
        self.rescan_button = QPushButton()
        self.rescan_button.clicked.connect(self._rescan)
        box.addWidget(self.camera_preview)
        box.addWidget(self.camera_state)
        box.addWidget(self.rescan_button)

    def fill_cameras(self) -> None:
        """The camera list: automatic, then every camera Qt lists by name; the saved camera stays in the list
        (marked not connected) while it is unplugged, so saving other settings does not lose it."""
        config = self._config
        self._devices = self._list_cameras()
        chosen = CameraChoice(config.camera_id, config.camera_name,
                              int(config.camera) if config.camera.isdigit() else None)
        index = resolve_camera_index(chosen, self._devices)
        present = [d for d in self._devices if d.index == index and (not chosen.name or d.name == chosen.name)]
        if not present and chosen.name:
            present = [d for d in self._devices if d.name == chosen.name]
        self.camera.blockSignals(True)
        self.camera.clear()
        self.camera.addItem("", None)
        names = [d.name for d in self._devices]
        for device in self._devices:
            self.camera.addItem(device.name if names.count(device.name) == 1 else f"{device.name} ({device.index})",
                                device)
        self._missing = None
        if present:
            self.camera.setCurrentIndex(self._devices.index(present[0]) + 1)
        elif not chosen.automatic:
            self._missing = CameraDevice(chosen.index if chosen.index is not None else 0, chosen.name,
                                         chosen.device_id)
            self.camera.addItem("", self._missing)
            self.camera.setCurrentIndex(self.camera.count() - 1)
        else:
            self.camera.setCurrentIndex(0)
        self.camera.blockSignals(False)
        self._retranslate_cameras()

    def chosen_camera(self) -> CameraDevice | None:
        data = self.camera.currentData()
        return data if isinstance(data, CameraDevice) else None

    def _camera_fields(self) -> dict[str, str]:
        device = self.chosen_camera()
        if device is None:
            return {"camera": "auto", "camera_id": "", "camera_name": ""}
        return {"camera": str(device.index), "camera_id": device.kept_id, "camera_name": device.name}

    def _rescan(self) -> None:
        kept = self._camera_fields()  # the choice on screen, not only the saved one
        self._config = replace(self._config, camera=kept["camera"], camera_id=kept["camera_id"],
                               camera_name=kept["camera_name"])
        self.fill_cameras()
        self._restart_preview()

    def _on_camera_change(self, _index: int) -> None:
        self._restart_preview()

    def set_hq_time_zone(self, zone: str | None) -> None:
        """The store's zone as HQ set it for this enrolled kiosk (read-only here), or None (staff choose)."""
        self.credit_settings.set_hq_zone(zone)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self._restart_preview()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802
        self.stop_preview()  # the page is left (another tab, the customer screen): the camera goes back
        super().hideEvent(event)

    def _restart_preview(self) -> None:
        if not self.isVisible():
            return
        self.stop_preview()
        device = self.chosen_camera()
        if not self._devices:
            self._preview_says(self._no_camera_text)
            return
        if device is not None and device is self._missing:
            self._preview_says(lambda: self.tr("This camera is not connected."))
            return
        self._preview_says(lambda: self.tr("Starting the camera…"))
        self._preview_token += 1
        token = self._preview_token
        self._feeds.pause_mirror(True)
        self._mirror_paused = True
        self._feeds.open(None if device is None else device.index,
                         lambda feed, error: self._on_feed(token, feed, error),
                         listed=tuple(d.index for d in self._devices))

    def _on_feed(self, token: int, feed: Feed | None, error: BaseException | None) -> None:
        if token != self._preview_token or not self.isVisible():
            if feed is not None:
                self._feeds.release(feed)
            return
        if error is not None or feed is None:
            self._preview_says(lambda: self.tr(
                "This camera does not open: it may be unplugged or in use by another program."))
            return
        self.camera_preview.show_feed(feed)

    def stop_preview(self) -> None:
        self._preview_token += 1
        feed = self.camera_preview.stop()
        if feed is not None:
            self._feeds.release(feed)
        if self._mirror_paused:
            self._mirror_paused = False
            self._feeds.pause_mirror(False)

    def _preview_says(self, text: Callable[[], str]) -> None:
        """A message in the preview's place, kept as a function so a language change words it again."""
        self._preview_message = text
        self.camera_preview.show_message(text())

    def _no_camera_text(self) -> str:
        return self.tr("No camera is connected. The mirror plays the demo video until one is plugged in.")

    def _retranslate_cameras(self) -> None:
        if not self.camera_preview.running and self._preview_message is not None:
            self.camera_preview.show_message(self._preview_message())
        self.camera.setItemText(0, self.tr("Automatic: the first camera found"))
        if self._missing is not None:
            name = self._missing.name or self.tr("Camera %1").replace("%1", str(self._missing.index))
            self.camera.setItemText(self.camera.count() - 1, self.tr("%1 (not connected)").replace("%1", name))
        self.camera_state.setText(self.tr("No camera found.") if not self._devices else
                                  self.tr("%n camera(s) found.", "", len(self._devices)))
        self.preview_label.setText(self.tr("Camera preview"))
        self.rescan_button.setText(self.tr("Look for cameras again"))

    def provider_id(self) -> str:
        return str(self.provider.currentData() or "offline")

    def _show_key_state(self, *_args: object) -> None:
        name = self.provider_id()
        self.api_key.clear()
        self.api_key.setEnabled(name != "offline")
        if name == "offline":
            self.key_state.setText(self.tr("No key needed"))
            return
        shown = masked(self._providers.settings_for(name).api_key)
        self.key_state.setText(shown or self.tr("No key set"))

    def save(self) -> bool:
        """Save everything; a new PIN only with the right current PIN (refused: nothing is saved, nothing lost)."""
        pin = self.new_pin.text().strip()
        # Over the file as it is now, so keys other pages saved since (the credit limits) are kept.
        config = load_config().with_changes(
            **self._camera_fields(), resolution=tuple(self.resolution.currentData()),
            mirror=self.mirror.isChecked(), hands_tracked=self.hands.currentData(), idle_timeout_s=self.idle.value(),
            snapshot_keep_days=self.keep_days.value(), language=self.language.currentData(),
            currency=self.currency.currentData(), share_to_phone=self.share.isChecked(),
            store_name=self.store_name.text(),
            **self.credit_settings.changes())
        if pin and not self._change_pin(pin):
            return False
        save_config(config)
        self._providers = self._with_provider_changes(self._providers)
        save_provider_config(self._providers)
        currency_changed = config.currency != self._config.currency
        self._config = config
        self.credit_settings.saved(config)
        self._show_key_state()
        waiting = self.needs_restart()
        self.restart_button.setVisible(waiting)
        text = (self.tr("Saved. Restart the kiosk to use the new camera, picture or sharing settings.")
                if waiting else self.tr("Saved."))
        if currency_changed:  # a price of 128 stays 128: in the new currency it may be wrong
            text += " " + self.tr("Prices already set keep their numbers: check them on the review page.")
        self.feedback.setText(text)
        self.config_saved.emit(config)
        return True

    def needs_restart(self) -> bool:
        """Whether a saved setting is read only when the kiosk starts and differs from the running one."""
        new, old = self._config, self._running
        # A camera the kiosk knew only by its index that is now also known by name (the first save after an
        # upgrade) is the same camera: no restart for that. Any other change of the chosen camera needs one.
        renamed = (old.camera_id or old.camera_name) and (new.camera_id, new.camera_name) != (old.camera_id,
                                                                                             old.camera_name)
        return bool(renamed) or any(getattr(new, name) != getattr(old, name) for name in RESTART_SETTINGS)

    def _change_pin(self, pin: str) -> bool:
        try:
            check_format(pin)
        except PinFormatError as exc:
            self.feedback.setText(self.tr("That PIN was the published default: choose another.")
                                  if exc.code == "PIN_RETIRED" else self.tr("The PIN must be 4 to 8 digits."))
            return False
        attempt = self._staff_pin.attempt(self.current_pin.text().strip())
        self.current_pin.clear()
        if attempt.outcome != PinOutcome.ACCEPTED:
            self.feedback.setText(wait_text(attempt.wait_s) if attempt.wait_s > 0 else
                                  self.tr("To change the PIN, type the current PIN first."))
            return False
        self._staff_pin.set(pin)
        self.new_pin.clear()
        return True

    def _with_provider_changes(self, providers: ProviderConfig) -> ProviderConfig:
        name = self.provider_id()
        providers = replace(providers, default_provider=name)
        new_key = self.api_key.text().strip()
        if new_key and name != "offline":
            old: RemoteProviderSettings = providers.settings_for(name)
            new = replace(old, api_key=Secret(new_key))
            providers = replace(providers, openai=new) if name == "openai" else replace(providers, dashscope=new)
        return providers

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        texts = [self.tr("Camera"), self.tr("Resolution"), self.tr("Mirror the picture"),
                 self.tr("Hands tracked"), self.tr("Idle reset after"), self.tr("Delete snapshots after"),
                 self.tr("Language"), self.tr("Price currency"), self.tr("Send photos to phones"),
                 self.tr("Store name"),
                 self.tr("Design provider"), self.tr("New API key"), self.tr("Current key"),
                 self.tr("Current staff PIN"), self.tr("New staff PIN")]
        for label, text in zip(self.labels, texts, strict=True):
            label.setText(text)
        self.api_key.setPlaceholderText(self.tr("Leave empty to keep the current key"))
        self.current_pin.setPlaceholderText(self.tr("Needed only to change the PIN"))
        self.new_pin.setPlaceholderText(self.tr("Leave empty to keep the current PIN"))
        for index in range(self.provider.count()):
            self.provider.setItemText(index, provider_text(str(self.provider.itemData(index))))
        self.save_button.setText(self.tr("Save settings"))
        self.restart_button.setText(self.tr("Restart the kiosk now"))
        self.share.setText(self.tr("Off keeps every photo on this kiosk"))
        self.store_name.setPlaceholderText(self.tr("On the take-home card and the phone's picture"))
        self.keep_days.setSuffix(self.tr(" days"))
        self._retranslate_cameras()

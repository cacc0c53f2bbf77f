"""The credit part of staff settings (ARCHITECTURE.md §14): the store's time zone, whose calendar day the daily
cap counts, and the price per image of each paid provider's model. The settings page saves them with the rest
of KioskConfig; the credits page puts them into the running engine's hooks, so the next generation is charged
and counted with them (no restart).

The time zone is picked in two touch-sized steps, region then zone, each zone shown by its name in the UI
language (Qt's ICU names: "中国标准时间" / "China Standard Time") with its UTC offset and IANA city; "this
computer's zone" takes the operating system's (not offered when it says plain UTC: an unset PC). On an enrolled
kiosk whose store time zone HQ recorded (core/sync/state.py `store_time_zone`) the zone is HQ's, shown and not
editable here. Prices are whole credits 0–1000 per image, saved under
"provider/model"; the offline generator renders on this PC and is always free (shown, not editable).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Mapping

from PySide6.QtCore import QByteArray, QDateTime, QEvent, QLocale, QTimeZone
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from nailmirror_desktop.core.config import FALLBACK_TIME_ZONE, UNSET_ZONES, KioskConfig, known_time_zone
from nailmirror_desktop.core.credits.pricing import FREE_PROVIDERS, price_per_image
from nailmirror_desktop.ui.shell.i18n import current_language
from nailmirror_desktop.ui.shell.messages import provider_model_text
from nailmirror_desktop.ui.staff.touch_controls import TOUCH_PX, TouchComboBox, TouchSpinBox

PAID_PROVIDERS = ("openai", "dashscope")
MAX_PRICE = 1000
REGIONS = ("Asia", "Europe", "America", "Africa", "Australia", "Pacific", "Indian", "Atlantic", "Antarctica",
           "Arctic", "Etc")


def zones_by_region() -> dict[str, list[str]]:
    """IANA names per region, as zoneinfo knows them (no aliases outside the regions, e.g. "US/Eastern")."""
    found: dict[str, list[str]] = {region: [] for region in REGIONS}
    for name in zoneinfo.available_timezones():
        region = name.split("/", 1)[0]
        if region in found and "/" in name:
            found[region].append(name)
    found["Etc"].append("UTC")
    return {region: sorted(names) for region, names in found.items() if names}


def system_zone() -> str:
    """The operating system's zone as an IANA name (Qt maps Windows' names too), or "" when unknown."""
    name = bytes(QTimeZone.systemTimeZoneId().data()).decode("ascii", "replace")
    return name if known_time_zone(name) and name not in UNSET_ZONES else ""


def zone_label(name: str, language: str) -> str:
    zone = QTimeZone(QByteArray(name.encode("ascii")))
    if not zone.isValid():
        return name
    shown = zone.displayName(QTimeZone.TimeType.GenericTime, QTimeZone.NameType.LongName, QLocale(language))
    offset = zone.offsetFromUtc(QDateTime.currentDateTimeUtc())
    sign = "+" if offset >= 0 else "-"
    hours, minutes = divmod(abs(offset) // 60, 60)
    where = f"{name.split('/')[-1].replace('_', ' ')} (UTC{sign}{hours:02d}:{minutes:02d})"
    return f"{shown} · {where}" if shown else where


class CreditSettingsBox(QWidget):
    """Time zone and prices; `changes()` is what the settings page saves into KioskConfig."""

    def __init__(self, config: KioskConfig, models: Mapping[str, str], parent: QWidget | None = None, *,
                 hq_zone: str | None = None) -> None:
        super().__init__(parent)
        self._hq_zone = hq_zone
        self._language = current_language()
        self._models = dict(models)
        self._prices = dict(config.credit_prices)  # keys this box does not show (other models) are kept
        self._zones = zones_by_region()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.region = TouchComboBox()
        self.zone = TouchComboBox()
        for combo, letters in ((self.region, 8), (self.zone, 18)):
            # Sized by a few letters, not by the longest zone name, so the page never grows sideways; the open
            # list is as wide as its names.
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(letters)
        for region in self._zones:
            self.region.addItem(region, region)
        self.region.currentIndexChanged.connect(self._fill_zones)
        self.use_system = QPushButton()
        self.use_system.setMinimumHeight(TOUCH_PX)
        self.use_system.clicked.connect(lambda: self.set_zone(system_zone() or self.zone_name()))
        zone_row = QHBoxLayout()
        zone_row.addWidget(self.region)
        zone_row.addWidget(self.zone, 1)
        self.zone_label = QLabel()
        self.zone_label.setWordWrap(True)
        form.addRow(self.zone_label, zone_row)
        form.addRow(QLabel(), self.use_system)
        self.hq_note = QLabel()  # shown when HQ set the zone: why it cannot be changed here
        self.hq_note.setObjectName("muted")
        self.hq_note.setWordWrap(True)
        form.addRow(QLabel(), self.hq_note)
        self.price_boxes: dict[str, TouchSpinBox] = {}
        self.price_labels: list[tuple[QLabel, str]] = []
        for provider in PAID_PROVIDERS:
            box = TouchSpinBox()
            box.setRange(0, MAX_PRICE)
            box.setValue(price_per_image(provider, self._models.get(provider), config.credit_prices))
            self.price_boxes[provider] = box
            label = QLabel()
            self.price_labels.append((label, provider))
            form.addRow(label, box)
        self.offline_label, self.offline_price = QLabel(), QLabel()
        self.offline_price.setObjectName("muted")
        form.addRow(self.offline_label, self.offline_price)
        layout.addLayout(form)
        self.set_zone(hq_zone or config.store_time_zone)
        self._lock_for_hq()
        self._retranslate()

    def set_hq_zone(self, hq_zone: str | None) -> None:
        """HQ's zone for the store while the kiosk is enrolled (shown, not editable), or None: staff choose (not
        enrolled, or an HQ that sends none). Called each time staff open the pages: a sync may have changed it."""
        if hq_zone == self._hq_zone:
            return
        self._hq_zone = hq_zone
        if hq_zone is not None:
            self.set_zone(hq_zone)
        self._lock_for_hq()

    def _lock_for_hq(self) -> None:
        for widget in (self.region, self.zone, self.use_system):
            widget.setEnabled(self._hq_zone is None and (widget is not self.use_system or bool(system_zone())))
        self.hq_note.setVisible(self._hq_zone is not None)

    # --- the time zone --------------------------------------------------------------------------------------

    def set_zone(self, name: str) -> None:
        region = "Etc" if name == "UTC" else name.split("/", 1)[0]
        index = self.region.findData(region)
        if index < 0:
            return
        self.region.setCurrentIndex(index)
        self._fill_zones()
        self.zone.setCurrentIndex(max(0, self.zone.findData(name)))

    def zone_name(self) -> str:
        return str(self.zone.currentData() or "")

    def _fill_zones(self, *_args: object) -> None:
        keep = self.zone_name()
        self.zone.blockSignals(True)
        self.zone.clear()
        for name in self._zones.get(str(self.region.currentData()), []):
            self.zone.addItem(zone_label(name, self._language), name)
        index = self.zone.findData(keep)
        self.zone.setCurrentIndex(index if index >= 0 else 0)
        self.zone.blockSignals(False)

    # --- prices ---------------------------------------------------------------------------------------------

    def price_key(self, provider: str) -> str:
        model = self._models.get(provider)
        return f"{provider}/{model}" if model else provider

    def changes(self) -> dict[str, object]:
        """The KioskConfig fields this box sets."""
        prices = dict(self._prices)
        for provider, box in self.price_boxes.items():
            prices[self.price_key(provider)] = box.value()
        for free in FREE_PROVIDERS:
            prices.pop(free, None)  # never priced, whatever a hand-edited file said
        return {"store_time_zone": self._hq_zone or self.zone_name() or FALLBACK_TIME_ZONE, "credit_prices": prices}

    def saved(self, config: KioskConfig) -> None:
        self._prices = dict(config.credit_prices)

    # --- language -------------------------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
            if current_language() != self._language:  # zone names come from ICU in the UI's language
                self._language = current_language()
                self._fill_zones()
        super().changeEvent(event)

    def _region_name(self, region: str) -> str:
        names = {"Asia": self.tr("Asia"), "Europe": self.tr("Europe"), "America": self.tr("Americas"),
                 "Africa": self.tr("Africa"), "Australia": self.tr("Australia"), "Pacific": self.tr("Pacific"),
                 "Indian": self.tr("Indian Ocean"), "Atlantic": self.tr("Atlantic"),
                 "Antarctica": self.tr("Antarctica"), "Arctic": self.tr("Arctic"), "Etc": self.tr("Other (UTC)")}
        return names.get(region, region)

    def _retranslate(self) -> None:
        for index in range(self.region.count()):
            self.region.setItemText(index, self._region_name(str(self.region.itemData(index))))
        self.zone_label.setText(self.tr("Store time zone (the daily cap's day)"))
        self.use_system.setText(self.tr("This computer's zone"))
        self.hq_note.setText(self.tr("Set by HQ for this store: ask HQ to change it."))
        for label, provider in self.price_labels:
            label.setText(self.tr("Credits per image: %1").replace(
                "%1", provider_model_text(provider, self._models.get(provider))))
        self.offline_label.setText(self.tr("Credits per image: %1").replace("%1", provider_model_text("offline", None)))
        self.offline_price.setText(self.tr("Free (rendered on this kiosk)"))

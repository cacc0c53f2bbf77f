// The kiosk's on-screen keyboard (ui/shell/on_screen_keyboard.py shows it in a QQuickWidget at the bottom of
// the main window). Qt Virtual Keyboard with Chinese pinyin and English; the language key switches between them.
import QtQuick
import QtQuick.VirtualKeyboard
import QtQuick.VirtualKeyboard.Settings

Item {
    id: root
    // Set from Python when the kiosk's language changes: the keyboard follows it ("zh_CN" or "en_US").
    property string kioskLocale: "zh_CN"
    readonly property bool keyboardActive: panel.active
    readonly property string keyboardLocale: VirtualKeyboardSettings.locale
    // Set from Python: the widest the keys may spread (their height follows their width); the widget then takes
    // the panel's height, candidates row included.
    property real maxPanelWidth: 960
    readonly property real panelHeight: panel.height

    InputPanel {
        id: panel
        // As wide as fits both the window and the height given: the keys keep their shape.
        width: Math.min(root.width, root.maxPanelWidth)
        anchors.bottom: root.bottom
        anchors.horizontalCenter: root.horizontalCenter
    }

    // Presses keys on the keyboard itself, as a finger would (through its input engine, so pinyin composes):
    // for the tests and the store build's smoke test. Letters only.
    function tapKeys(letters) {
        for (var i = 0; i < letters.length; i++) {
            var ch = letters.charAt(i)
            InputContext.inputEngine.virtualKeyClick(Qt.Key_A + ch.toLowerCase().charCodeAt(0) - 97, ch, 0)
        }
    }

    // Picks a word from the pinyin candidates row, as a finger would (tests, smoke test).
    function chooseCandidate(index) {
        InputContext.inputEngine.wordCandidateListModel.selectItem(index)
    }

    function applyLocale() {
        VirtualKeyboardSettings.activeLocales = ["zh_CN", "en_US"]
        VirtualKeyboardSettings.locale = root.kioskLocale
    }
    onKioskLocaleChanged: applyLocale()
    Component.onCompleted: applyLocale()
}

// The kiosk's on-screen keyboard (ui/shell/on_screen_keyboard.py shows it in a QQuickWidget at the bottom of
// the main window). Qt Virtual Keyboard with Chinese pinyin and English; the language key switches between them.
import QtQuick
import QtQuick.VirtualKeyboard
import QtQuick.VirtualKeyboard.Settings
import QtQuick.VirtualKeyboard.Core

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

    // Set from Python: the salon's words (the prompt vocabulary's Chinese terms, salon_words.txt). The pinyin
    // engine's general dictionary ranks them after everyday words (maoyan: 冒烟 before 猫眼); among the
    // candidates it offers they come first, in the engine's own order, the rest follow as it gave them.
    property var salonWords: []
    readonly property var engineCandidates: InputContext.inputEngine.wordCandidateListModel
    readonly property int candidatesKept: 200  // more is never scrolled to on a counter; rebuilt per key

    InputPanel {
        id: panel
        // As wide as fits both the window and the height given: the keys keep their shape.
        width: Math.min(root.width, root.maxPanelWidth)
        anchors.bottom: root.bottom
        anchors.horizontalCenter: root.horizontalCenter
        Component.onCompleted: panel.keyboard.wordCandidateView.model = salonFirst
    }

    // The candidates row's model: the engine's candidates, salon words first. Each row keeps the engine's
    // index, so a tap selects exactly what the engine offered.
    ListModel {
        id: salonFirst
        signal activeItemChanged(int index)
        signal itemSelected()

        function selectItem(index) {
            if (index < 0 || index >= count)
                return
            root.engineCandidates.selectItem(get(index).engineIndex)
        }
        function dataAt(index, role) {
            return index >= 0 && index < count ? root.engineCandidates.dataAt(get(index).engineIndex, role) : undefined
        }
        function rebuild() {
            var model = root.engineCandidates
            var first = [], rest = []
            var total = Math.min(model ? model.count : 0, root.candidatesKept)
            for (var i = 0; i < total; i++) {
                var row = {
                    "display": String(model.dataAt(i, SelectionListModel.Role.Display)),
                    "wordCompletionLength": Number(model.dataAt(i, SelectionListModel.Role.WordCompletionLength)) || 0,
                    "dictionary": Number(model.dataAt(i, SelectionListModel.Role.Dictionary)) || 0,
                    "canRemoveSuggestion": Boolean(model.dataAt(i, SelectionListModel.Role.CanRemoveSuggestion)),
                    "engineIndex": i
                }
                if (root.salonWords.indexOf(row.display) >= 0)
                    first.push(row)
                else
                    rest.push(row)
            }
            // Row by row, not cleared and refilled: the row would animate every candidate in again per key.
            var rows = first.concat(rest)
            for (var j = 0; j < rows.length; j++) {
                if (j < count)
                    set(j, rows[j])
                else
                    append(rows[j])
            }
            if (count > rows.length)
                remove(rows.length, count - rows.length)
        }
        // The engine says "changed" several times per key (count, reset, data): read it once, when it is done.
        function rebuildSoon() { Qt.callLater(salonFirst.rebuild) }
    }
    Connections {
        target: root.engineCandidates
        function onCountChanged() { salonFirst.rebuildSoon() }
        function onModelReset() { salonFirst.rebuildSoon() }
        function onDataChanged() { salonFirst.rebuildSoon() }
        function onItemSelected() { salonFirst.itemSelected() }
    }

    // Presses keys on the keyboard itself, as a finger would (through its input engine, so pinyin composes):
    // for the tests and the store build's smoke test. Letters only.
    function tapKeys(letters) {
        for (var i = 0; i < letters.length; i++) {
            var ch = letters.charAt(i)
            InputContext.inputEngine.virtualKeyClick(Qt.Key_A + ch.toLowerCase().charCodeAt(0) - 97, ch, 0)
        }
    }

    // Picks a word from the pinyin candidates row (as the row shows them, salon words first), as a finger
    // would (tests, smoke test).
    function chooseCandidate(index) {
        salonFirst.selectItem(index)
    }

    // The candidates as the row shows them (tests).
    function candidateWords() {
        var words = []
        for (var i = 0; i < salonFirst.count; i++)
            words.push(salonFirst.get(i).display)
        return words
    }

    function applyLocale() {
        VirtualKeyboardSettings.activeLocales = ["zh_CN", "en_US"]
        VirtualKeyboardSettings.locale = root.kioskLocale
    }
    onKioskLocaleChanged: applyLocale()
    Component.onCompleted: applyLocale()
}

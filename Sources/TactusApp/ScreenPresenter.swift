import TactusCore

/// Maps the state machine onto what the screen renderer draws.
public enum ScreenPresenter {
    public static func model(for state: BoxState, timeline: BeatTimeline?) -> ScreenModel {
        let view = state.screen
        let settings = state.settings
        var model = ScreenModel(
            page: .stopped, settings: settings, marking: view.marking, wheelMode: wheelMode(view.mode),
            focus: focus(for: state), timeline: timeline)
        let soundIndex = state.soundNames.firstIndex(of: settings.sound) ?? 0
        model.soundSets = ScreenChoice(title: "Sound", entries: state.soundNames, position: Double(soundIndex))
        if view.dimmed {
            model.page = .dimmed
            // Move the dimmed content now and then so no pixel stays lit for hours.
            model.dimStep = Int(state.now.nanoseconds / 120_000_000_000)
        } else if let menu = view.menu {
            model.page = .menu(ScreenChoice(title: menu.title, entries: menu.items, position: Double(menu.selected)))
        } else if timeline != nil {
            model.page = .playing
        }
        return model
    }

    static func wheelMode(_ mode: WheelMode) -> ScreenWheelMode {
        switch mode {
        case .tempo: .tempo
        case .accents: .accents
        case .meter: .meter
        case .beatUnit: .beatUnit
        case .subdivisions: .subdivisions
        case .sound: .sound
        case .volumes: .volume
        }
    }

    /// The state machine counts fields per mode; the screen wants the thing being edited.
    static func focus(for state: BoxState) -> Int {
        switch state.mode {
        case .accents: max(0, state.field - 1)          // field 0 is "accent every N"
        case .subdivisions: state.settings.subdivisions.layers.first ?? 2
        case .volumes: min(state.field, 2)               // master, accent, beat
        default: state.field
        }
    }
}

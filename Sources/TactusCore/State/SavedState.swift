/// What the footswitch does.
public enum FootswitchFunction: String, Sendable, Hashable, CaseIterable {
    case startStop = "start-stop"
    case tap
}

/// The box's own settings, changed in the menu and saved with the musical settings.
public struct Preferences: Sendable, Hashable {
    public static let screenDimRange: ClosedRange<Int> = 0...3600

    public var momentum = true
    /// Tap tempo tolerance in percent (TapTempo.toleranceRange).
    public var tapTolerancePercent = 20
    /// Seconds of inactivity while stopped before the screen dims; 0 never dims.
    public var screenDimSeconds = 60
    public var footswitch = FootswitchFunction.startStop

    public init() {}
}

public struct Preset: Sendable, Hashable {
    public var name: String
    public var settings: MetronomeSettings

    public init(name: String, settings: MetronomeSettings) {
        self.name = name
        self.settings = settings
    }
}

/// Everything the settings file holds: survives power cuts (SPEC 7).
public struct SavedState: Sendable, Hashable {
    public var settings: MetronomeSettings
    public var preferences: Preferences
    public var presets: [Preset]

    public init(settings: MetronomeSettings = MetronomeSettings(), preferences: Preferences = Preferences(),
                presets: [Preset] = []) {
        self.settings = settings
        self.preferences = preferences
        self.presets = presets
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later

/// Every request of the control socket (`{"cmd":NAME,...}`), the one list `ControlHub`,
/// `tactus ctl`, `tactus-web` and the pages (share/web/protocol.js, generated) use.
public enum WireCommand: String, CaseIterable, Sendable, Hashable {
    case state, set, transport
    /// TAP as the box's TAP button: the box's own tap-tempo rule (its tolerance) sets the tempo.
    case tap
    case songs, putSongs = "put-songs", importKlick = "import-klick"
    case sounds, addSound = "add-sound", deleteSound = "delete-sound"
    case preferences, setPreferences = "set-preferences", midiMap = "midi-map", putMIDIMap = "put-midi-map"
    case coach, calibrateCoach = "calibrate-coach", practice
    case web, pair, auth, browsers, revoke, subscribe

    /// The name on the wire.
    public var name: String { rawValue }

    /// The request line's members for this command, `cmd` first, then `members`'.
    public func request(_ members: JSONObject = JSONObject()) -> JSONObject {
        var object = JSONObject()
        object.add(.cmd, name)
        object.append(members)
        return object
    }
}

/// The `type` of the lines the box sends to its subscribers and tactus-web to the pages.
public enum WireEvent: String, CaseIterable, Sendable, Hashable {
    case state, beat, beats, hello, ping, pong
    public var name: String { rawValue }
}

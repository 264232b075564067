// SPDX-License-Identifier: GPL-3.0-or-later
import TactusWire
import ClickEngine
import TactusBase
import TactusMusic
import TactusInstrument
import TOMLReader

/// A failure the control socket reports: an HTTP-like status and one message.
public struct ControlError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var description: String
    /// More members for the reply (`,"line":3`).
    public var extra = ""
    public init(_ status: Int, _ description: String) {
        self.status = status
        self.description = description
    }
}

/// The files behind the control socket's commands (the executable gives LinuxHAL's).
public protocol ControlFiles: Sendable {
    /// The practice log as the members `"minutes":{"2026-11-23":42.5},"sessions":[...]`.
    func practiceJSON() -> String
    /// Checks a spooled WAV as the box checks its sounds and takes it into the sounds
    /// folder as `set/file`; returns the whole set once accent, beat and sub are there.
    func addSound(set: String, file: String, from path: String) throws(ControlError) -> SoundSet?
    /// Removes a user sound set's folder.
    func removeSound(set: String) throws(ControlError)
    /// Whether `set` is installed with the box (a voice set, voice-LANG), not the user's:
    /// listed as built in and never deleted.
    func isInstalled(set: String) -> Bool
}

extension ControlFiles {
    public func isInstalled(set: String) -> Bool { false }
}

/// The companion's settings the box holds: where it listens (`[web] listen`).
public struct CompanionConfiguration: Sendable {
    public var listen: String
    public init(listen: String = "0.0.0.0:8080") { self.listen = listen }
}

/// The box's side of the control socket (README "Control socket"): one JSON object a line
/// in, one a line out (`id` echoed), plus the live lines of `subscribe`. Everything it
/// changes goes through the reducer (`Action.remote`), checked first with the settings
/// file's parsers and messages. Runs only on the box's control thread; `send` queues.
public final class ControlHub: BoxControlObserver, @unchecked Sendable {
    public typealias Send = @Sendable (_ client: Int32, _ line: String) -> Void
    private let send: Send
    private let files: any ControlFiles
    public var configuration: CompanionConfiguration
    private var subscribers: Set<Int32> = []
    /// Added to the box's times to give CLOCK_MONOTONIC (a headless real-time simulation
    /// counts from 0; the live box's clock is CLOCK_MONOTONIC itself).
    public var clockOffset: Int64 = 0
    private var lastState: String?

    public init(send: @escaping Send, files: any ControlFiles, configuration: CompanionConfiguration) {
        self.send = send
        self.files = files
        self.configuration = configuration
    }

    public static let commands = ["state", "set", "transport", "songs", "put-songs", "import-klick", "sounds", "add-sound", "delete-sound",
                                  "preferences", "set-preferences", "midi-map", "put-midi-map", "coach", "calibrate-coach", "practice", "web", "pair", "auth", "browsers", "revoke", "subscribe"]

    /// A client hung up: its subscription ends.
    public func closed(_ client: Int32) { subscribers.remove(client) }

    /// The longest request line read (the control socket's own limit).
    public static let maximumRequestBytes = 4 << 20
    /// Songs from the companion or `tactus ctl` (issue 32): the TOML text, the songs, the
    /// sections of one song. The settings file holding the most they allow stays readable.
    public static let maximumSongsBytes = 256 << 10
    public static let maximumSongs = 64
    public static let maximumSections = 256

    /// One request line from `client`; the answer is sent before this returns. A change is
    /// in the settings file (fsynced, renamed, folder fsynced) before its answer is sent, so
    /// nothing answered ok is lost to a power cut.
    public func handle(_ line: String, from client: Int32, box: Box) {
        let request: JSONValue
        do { request = try JSONValue.parse(line, limit: ControlHub.maximumRequestBytes) } catch {
            // Answered with the line's id whenever it has one, so the request never waits forever.
            return send(client, failure(400, "request is not JSON: \(error)", id: JSONValue.leadingID(line)))
        }
        let id = request["id"]
        do {
            let before = box.state.saved
            var result = try answer(request, from: client, box: box)
            if box.state.saved != before, let problem = box.saveNow() {
                throw ControlError(500, "the change is made but could not be saved: \(problem)")
            }
            result += etag(request["cmd"]?.stringValue ?? "", box)
            send(client, "{\"ok\":true" + (id.map { ",\"id\":\($0.json)" } ?? "") + result + "}")
        } catch let problem as RemotePatch.Problem {
            send(client, "{\"ok\":false" + (id.map { ",\"id\":\($0.json)" } ?? "")
                 + ",\"status\":422,\"field\":\(JSONValue.quoted(problem.field)),\"error\":\(JSONValue.quoted(problem.description))}")
        } catch let error as ControlError {
            send(client, failure(error.status, error.description, id: id, extra: error.extra))
        } catch {
            send(client, failure(500, "\(error)", id: id))
        }
    }

    /// The version of what the answer holds, for `If-Match` (`"etag"`): the songs, or the
    /// state's settings (what `set` changes; the beat and the screen do not count).
    private func etag(_ command: String, _ box: Box) -> String {
        switch command {
        case "songs", "put-songs": ",\"etag\":" + JSONValue.quoted(songsTag(box))
        case "state", "set", "transport", "subscribe": ",\"etag\":" + JSONValue.quoted(stateTag(box))
        default: ""
        }
    }

    /// Versions count changes (a compare, not a hash of megabytes of songs), under a random
    /// name per run of the box, so a tag from before a restart never matches.
    private var versions = (run: String(UInt32.random(in: 0...UInt32.max), radix: 36), songs: 0, state: 0)
    private var seenLibrary: SongLibrary?
    private var seenSettings: MetronomeSettings?

    public func songsTag(_ box: Box) -> String {
        if seenLibrary != box.state.saved.library { seenLibrary = box.state.saved.library; versions.songs += 1 }
        return "songs-\(versions.run)-\(versions.songs)"
    }

    public func stateTag(_ box: Box) -> String {
        if seenSettings != box.state.settings { seenSettings = box.state.settings; versions.state += 1 }
        return "state-\(versions.run)-\(versions.state)"
    }

    /// A write with `if_match` naming an older version than `current`: 412, with the version
    /// there is now and what it holds (`extra`), so the page can show theirs.
    private func checkVersion(_ request: JSONValue, current: String, what: String, extra: @autoclosure () -> String) throws(ControlError) {
        guard let wanted = request["if_match"]?.stringValue, wanted != "*", wanted != current else { return }
        throw ControlError(412, "\(what) changed since you read them (someone else saved): yours are not saved; reload to see theirs",
                           extra: ",\"etag\":\(JSONValue.quoted(current))" + extra())
    }

    private func failure(_ status: Int, _ message: String, id: JSONValue?, extra: String = "") -> String {
        "{\"ok\":false" + (id.map { ",\"id\":\($0.json)" } ?? "") + ",\"status\":\(status),\"error\":\(JSONValue.quoted(message))\(extra)}"
    }

    private func act(_ request: RemoteRequest, _ box: Box) { box.handle(.remote(request, at: box.now)) }

    private func string(_ request: JSONValue, _ key: String) throws(ControlError) -> String {
        guard let value = request[key]?.stringValue else { throw ControlError(400, "\(key) is missing: give it as a string") }
        return value
    }

    /// The members after `"ok":true` (each with a leading comma).
    private func answer(_ request: JSONValue, from client: Int32, box: Box) throws -> String {
        let command = request["cmd"]?.stringValue ?? ""
        switch command {
        case "state": return ",\"state\":" + StateJSON.object(box.state)
        case "set", "transport": return try playing(command, request, box)
        case "songs", "put-songs", "import-klick": return try songs(command, request, box)
        case "sounds", "add-sound", "delete-sound": return try sounds(command, request, box)
        case "preferences", "set-preferences", "midi-map", "put-midi-map": return try settings(command, request, box)
        case "coach", "calibrate-coach": return try coach(command, box)
        case "practice": return "," + files.practiceJSON()
        case "web", "pair", "auth", "browsers", "revoke": return try companion(command, request, box)
        case "subscribe":
            subscribers.insert(client)
            lastState = nil
            return ",\"state\":" + StateJSON.object(box.state)
        default:
            throw ControlError(400, "cmd '\(command)' is unknown: allowed \(ControlHub.commands.joined(separator: ", "))")
        }
    }

    /// `set` (state fields) and `transport` (START/STOP, or a song played).
    private func playing(_ command: String, _ request: JSONValue, _ box: Box) throws -> String {
        if command == "set" {
            try checkVersion(request, current: stateTag(box), what: "the settings", extra: ",\"state\":" + StateJSON.object(box.state))
            guard var fields = request["fields"] else { throw ControlError(400, "fields is missing: give an object such as {\"bpm\":132}") }
            // A client may send back the whole state object it read, changed: a field that is not
            // settable is passed over when it holds the box's value (a changed one is a 422 naming it).
            if case .object(let members) = fields, let current = try? JSONValue.parse(StateJSON.object(box.state)) {
                fields = .object(members.filter { RemotePatch.settable.contains($0.key) || current[$0.key] != $0.value })
            }
            let (settings, playing) = try RemotePatch.apply(fields, to: box.state.settings, soundNames: box.state.soundNames)
            if settings != box.state.settings { act(.settings(settings), box) }
            if let playing { act(.transport(playing: playing), box) }
            return ",\"state\":" + StateJSON.object(box.state)
        }
        guard let playing = request["playing"]?.boolValue else { throw ControlError(400, "playing is missing: give true or false") }
        if playing, let song = request["song"]?.stringValue {
            let choices = SongPractice.choices(box.state.saved).map(\.name)
            guard choices.contains(song) else {
                throw ControlError(422, "song \(JSONValue.quoted(song)) is not on the box: allowed \(choices.joined(separator: ", "))", extra: ",\"field\":\"song\"")
            }
            act(.playSong(song), box)
        } else {
            act(.transport(playing: playing), box)
        }
        return ",\"state\":" + StateJSON.object(box.state)
    }

    /// `songs`, `put-songs` (checked as the settings file is) and `import-klick`.
    private func songs(_ command: String, _ request: JSONValue, _ box: Box) throws -> String {
        switch command {
        case "put-songs":
            let text = try string(request, "toml")
            try checkVersion(request, current: songsTag(box), what: "the songs",
                             extra: ",\"toml\":" + JSONValue.quoted(RemotePatch.toml(box.state.saved.library)))
            guard text.utf8.count <= ControlHub.maximumSongsBytes else {
                throw ControlError(413, "the songs are \(text.utf8.count) bytes: at most 256 KB (\(ControlHub.maximumSongsBytes) bytes)")
            }
            let library: SongLibrary
            do { library = try RemotePatch.library(fromTOML: text) } catch { throw ControlError(fileError: error) }
            try checkLimits(library, box)
            act(.library(library), box)
        case "import-klick":
            let text = try string(request, "map")
            let name = request["name"]?.stringValue ?? "Imported"
            do {
                let song = try KlickTempoMap(parsing: text).song(name: name)
                return ",\"toml\":" + JSONValue.quoted(SongFile.encode(SongLibrary(songs: [song])))
            } catch { throw ControlError(422, "tempo map: \(error)") }
        default: break
        }
        return ",\"toml\":" + JSONValue.quoted(RemotePatch.toml(box.state.saved.library))
    }

    /// At most 64 songs of 256 sections each, and a settings file the box will read again.
    private func checkLimits(_ library: SongLibrary, _ box: Box) throws(ControlError) {
        guard library.songs.count <= ControlHub.maximumSongs else {
            throw ControlError(422, "\(library.songs.count) songs: at most \(ControlHub.maximumSongs) songs", extra: ",\"field\":\"song\"")
        }
        if let long = library.songs.first(where: { $0.sections.count > ControlHub.maximumSections }) {
            throw ControlError(422, "song \(JSONValue.quoted(long.name)) has \(long.sections.count) sections: at most \(ControlHub.maximumSections) sections a song",
                               extra: ",\"field\":\"song.section\"")
        }
        var candidate = box.state.saved
        candidate.library = library
        let bytes = SettingsFile.encode(candidate).utf8.count
        guard bytes <= SettingsFile.maximumBytes else {
            throw ControlError(413, "the settings file would be \(bytes) bytes: at most 4 MiB (\(SettingsFile.maximumBytes) bytes)")
        }
    }

    /// `sounds`, `add-sound` (a spooled WAV checked and taken in) and `delete-sound`.
    private func sounds(_ command: String, _ request: JSONValue, _ box: Box) throws -> String {
        switch command {
        case "add-sound":
            let set = try string(request, "set"), file = try string(request, "file"), path = try string(request, "path")
            guard !BuiltInSounds.names.contains(set) else { throw ControlError(409, "\(set) is a built-in sound set: choose another name") }
            guard let sounds = try files.addSound(set: set, file: file, from: path) else { return ",\"complete\":false" }
            box.engine.register(sounds)
            act(.soundAdded(set), box)
            return ",\"complete\":true"
        case "delete-sound":
            let set = try string(request, "set")
            guard !BuiltInSounds.names.contains(set), !files.isInstalled(set: set) else { throw ControlError(409, "\(set) is built in and cannot be deleted") }
            try files.removeSound(set: set)
            act(.soundRemoved(set), box)
            return ""
        default:
            let names = box.state.soundNames.map(JSONValue.quoted).joined(separator: ",")
            let installed = box.state.soundNames.filter { !BuiltInSounds.names.contains($0) && files.isInstalled(set: $0) }
            let builtIn = (BuiltInSounds.names + installed).map(JSONValue.quoted).joined(separator: ",")
            return ",\"sounds\":[\(names)],\"built_in\":[\(builtIn)],\"current\":\(JSONValue.quoted(box.state.settings.sound))"
        }
    }

    /// `preferences` and `set-preferences` (Menu > Settings); `midi-map` and `put-midi-map`
    /// (the `[midi.map]` the box keeps in its settings file, in place of the configuration's).
    private func settings(_ command: String, _ request: JSONValue, _ box: Box) throws -> String {
        switch command {
        case "set-preferences":
            guard let fields = request["fields"] else { throw ControlError(400, "fields is missing: give an object such as {\"momentum\":false}") }
            act(.preferences(try RemotePatch.preferences(fields, to: box.state.saved.preferences)), box)
        case "put-midi-map":
            guard let value = request["toml"] else { throw ControlError(400, "toml is missing: give the [midi.map] table as a string, or null for the configuration's") }
            if value == .null {
                act(.midiMap(nil), box)
            } else {
                guard let text = value.stringValue else { throw ControlError(400, "toml is not a string: give the [midi.map] table, or null") }
                do { act(.midiMap(try RemotePatch.midiMap(fromTOML: text)), box) } catch { throw ControlError(fileError: error) }
            }
            return midiMap(box)
        case "midi-map":
            return midiMap(box)
        default: break
        }
        return ",\"preferences\":" + RemotePatch.json(box.state.saved.preferences)
    }

    /// The map in effect and where it comes from: `"box"` (edited at the companion, in the
    /// settings file) or `"configuration"` (`[midi.map]` of the configuration file).
    private func midiMap(_ box: Box) -> String {
        let edited = box.state.saved.midiMap
        let map = edited ?? box.midiConfiguration.map
        let entries = map.map { "{\"message\":\(JSONValue.quoted($0.key)),\"control\":\(JSONValue.quoted($0.control.text))}" }
        return ",\"source\":\"\(edited == nil ? "configuration" : "box")\",\"map\":[\(entries.joined(separator: ","))],\"toml\":" + JSONValue.quoted(RemotePatch.toml(map))
    }

    /// `coach` (the calibration: the input, whether it runs, the stored round trip) and
    /// `calibrate-coach` (Menu > Coach > Calibrate from afar: 409 without an input).
    private func coach(_ command: String, _ box: Box) throws -> String {
        if command == "calibrate-coach" {
            guard box.coachInputAvailable else {
                throw ControlError(409, "the coach has no audio input: set [coach] input in the configuration file (README Coach)")
            }
            act(.calibrateCoach, box)
        }
        let roundTrip = box.state.saved.preferences.coachRoundTripMicroseconds.map { "\(Double($0) / 1000)" } ?? "null"
        let last = box.state.lastCoachCalibration.map(JSONValue.quoted) ?? "null"
        return ",\"coach\":{\"input\":\(box.coachInputAvailable),\"calibrating\":\(box.state.calibratingCoach),\"round_trip_ms\":\(roundTrip),\"last\":\(last)}"
    }

    /// `web` (on, where), `pair`, `auth`, `browsers` and `revoke`.
    private func companion(_ command: String, _ request: JSONValue, _ box: Box) throws -> String {
        switch command {
        case "web":
            return ",\"on\":\(box.state.saved.preferences.companion),\"listen\":\(JSONValue.quoted(configuration.listen))"
        case "pair":
            return try pair(request, box)
        case "auth":
            let token = try string(request, "token")
            guard box.state.saved.preferences.companion, let browser = box.state.companion.browser(token: token) else {
                throw ControlError(401, "not paired: pair this browser with the code shown on the box")
            }
            return ",\"browser\":\(browser.id)"
        case "revoke":
            guard let id = request["browser"]?.intValue else { throw ControlError(400, "browser is missing: give its number") }
            act(.revoke(browser: id), box)
            return ""
        default:
            let list = box.state.companion.browsers.map { "{\"id\":\($0.id),\"name\":\(JSONValue.quoted($0.name))}" }
            return ",\"browsers\":[\(list.joined(separator: ","))]"
        }
    }

    private func pair(_ request: JSONValue, _ box: Box) throws -> String {
        let code = try string(request, "code"), token = try string(request, "token")
        let name = Companion.shortName(request["name"]?.stringValue ?? "browser")
        // The client's address (the companion gives it): wrong codes lock that address only.
        let from = String((request["client"]?.stringValue ?? "local").utf8.prefix(64)) ?? "local"
        guard token.utf8.count >= 32, token.utf8.count <= 128 else { throw ControlError(400, "token is invalid: 256 random bits in hex expected") }
        act(.pair(code: code, token: token, name: name, client: from), box)
        switch box.state.companion.lastPairing {
        case .paired(let id): return ",\"browser\":\(id)"
        case .full:
            throw ControlError(422, "at most \(Companion.maximumBrowsers) paired browsers: revoke one first (Menu > Settings > Companion, or tactus ctl revoke N)",
                               extra: ",\"field\":\"browser\"")
        case .locked(let until):
            let seconds = max(1, (until.nanoseconds - box.now.nanoseconds + 999_999_999) / 1_000_000_000)
            throw ControlError(429, "pairing is locked for \(seconds) s for this address after 5 wrong codes", extra: ",\"retry_after\":\(seconds)")
        default:
            let locked = box.state.companion.isLocked(from, at: box.now) ? "; 5 wrong codes within a minute: pairing is now locked for 60 s" : ""
            throw ControlError(403, "wrong or expired pairing code: read the code on the box (Menu > Settings > Companion > Pair a browser)\(locked)")
        }
    }

    // MARK: live lines for subscribers

    public func box(_ box: Box, didStart onset: OnsetEvent, heardAt time: MonotonicTime) {
        guard !subscribers.isEmpty, onset.layer == 0, onset.kind <= .beat else { return }
        let ns = time.nanoseconds + clockOffset
        let line = "{\"type\":\"beat\",\"bar\":\(onset.bar),\"beat\":\(onset.beat),\"kind\":\"\(onset.kind.name)\",\"ns\":\(ns),\"mono\":\(ControlHub.mono(ns))\(onset.muted ? ",\"muted\":true" : "")}"
        for client in subscribers { send(client, line) }
    }

    public var followsBeats: Bool { !subscribers.isEmpty }

    /// CLOCK_MONOTONIC seconds with 6 decimals, as the events' `mono` (exact, no floating point).
    static func mono(_ nanoseconds: Int64) -> String {
        let micro = (nanoseconds + 500) / 1000
        let fraction = String(micro % 1_000_000)
        return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    public func box(_ box: Box, willPlay beats: [AnnouncedBeat], from: MonotonicTime) {
        guard !subscribers.isEmpty else { return }
        let list = beats.map { "{\"bar\":\($0.bar),\"beat\":\($0.beat),\"ns\":\($0.time.nanoseconds + clockOffset)}" }
        let line = "{\"type\":\"beats\",\"from\":\(from.nanoseconds + clockOffset),\"beats\":[\(list.joined(separator: ","))]}"
        for client in subscribers { send(client, line) }
    }

    public func box(_ box: Box, didChange state: BoxState, at time: MonotonicTime) {
        guard !subscribers.isEmpty else { return }
        let fields = StateJSON.fields(state) + ",\"companion\":\(state.saved.preferences.companion)"
        guard fields != lastState else { return }
        lastState = fields
        let line = "{\"type\":\"state\",\"ns\":\(time.nanoseconds + clockOffset),\(fields)}"
        for client in subscribers { send(client, line) }
    }
}

extension ControlError {
    /// With more members for the reply (`,"line":3`).
    init(_ status: Int, _ description: String, extra: String) {
        self.init(status, description)
        self.extra = extra
    }

    /// A file the companion sent (songs, the MIDI map) that its reader refused: 422 with the
    /// reader's own message, its line and field.
    init(fileError error: TOMLError) {
        let field = error.field.map { ",\"field\":\(JSONValue.quoted($0))" } ?? ""
        self.init(422, "\(error)", extra: ",\"line\":\(error.line)" + field)
    }
}

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
    /// More members for the reply (`"line":3`).
    public var extra = JSONObject()
    public init(_ status: Int, _ description: String) {
        self.status = status
        self.description = description
    }
}

/// The files behind the control socket's commands (the executable gives LinuxHAL's).
public protocol ControlFiles: Sendable {
    /// The practice log as the members `"minutes":{"2026-11-23":42.5},"sessions":[...]`.
    func practice() -> JSONObject
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

    /// Every command's name (`WireCommand`, the protocol's one list).
    public static let commands = WireCommand.allCases.map(\.name)

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
        let id = request[WireField.id.name]
        do {
            let before = box.state.saved
            let command = try Self.command(request)
            var result = try answer(command, request, from: client, box: box)
            if box.state.saved != before, let problem = box.saveNow() {
                throw ControlError(500, "the change is made but could not be saved: \(problem)")
            }
            if let tag = etag(command, box) { result.add(.etag, tag) }
            var line = JSONObject()
            line.add(.ok, true)
            line.add(.id, ifPresent: id)
            line.append(result)
            send(client, line.text)
        } catch let problem as RemotePatch.Problem {
            send(client, failure(422, problem.description, id: id, extra: JSONObject { $0.add(.field, problem.field) }, fieldFirst: true))
        } catch let error as ControlError {
            send(client, failure(error.status, error.description, id: id, extra: error.extra))
        } catch {
            send(client, failure(500, "\(error)", id: id))
        }
    }

    /// The request's `cmd`, or a 400 naming those there are.
    static func command(_ request: JSONValue) throws(ControlError) -> WireCommand {
        let name = request[WireField.cmd.name]?.stringValue ?? ""
        guard let command = WireCommand(rawValue: name) else {
            throw ControlError(400, "cmd '\(name)' is unknown: allowed \(ControlHub.commands.joined(separator: ", "))")
        }
        return command
    }

    /// The version of what the answer holds, for `If-Match` (`"etag"`): the songs, or the
    /// state's settings (what `set` changes; the beat and the screen do not count).
    private func etag(_ command: WireCommand, _ box: Box) -> String? {
        switch command {
        case .songs, .putSongs: songsTag(box)
        case .state, .set, .transport, .tap, .subscribe: stateTag(box)
        default: nil
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
    private func checkVersion(_ request: JSONValue, current: String, what: String, extra: @autoclosure () -> JSONObject) throws(ControlError) {
        guard let wanted = request[WireField.ifMatch.name]?.stringValue, wanted != "*", wanted != current else { return }
        var members = JSONObject { $0.add(.etag, current) }
        members.append(extra())
        throw ControlError(412, "\(what) changed since you read them (someone else saved): yours are not saved; reload to see theirs", extra: members)
    }

    /// `{"ok":false,"id":N,"status":S,"error":E,...}` (a 422 of a field: the field before the error).
    private func failure(_ status: Int, _ message: String, id: JSONValue?, extra: JSONObject = JSONObject(), fieldFirst: Bool = false) -> String {
        var line = JSONObject()
        line.add(.ok, false)
        line.add(.id, ifPresent: id)
        line.add(.status, status)
        if fieldFirst { line.append(extra) }
        line.add(.error, message)
        if !fieldFirst { line.append(extra) }
        return line.text
    }

    /// `{"state":{...}}`: the answer of every command that changes or reads the state.
    private func state(_ box: Box) -> JSONObject {
        var answer = JSONObject()
        answer.add(WireField.state, StateJSON.object(box.state))
        return answer
    }

    private func act(_ request: RemoteRequest, _ box: Box) { box.handle(.remote(request, at: box.now)) }

    private func string(_ request: JSONValue, _ key: WireField) throws(ControlError) -> String {
        guard let value = request[key.name]?.stringValue else { throw ControlError(400, "\(key.name) is missing: give it as a string") }
        return value
    }

    /// The members after `"ok":true`.
    private func answer(_ command: WireCommand, _ request: JSONValue, from client: Int32, box: Box) throws -> JSONObject {
        switch command {
        case .state: return state(box)
        case .set, .transport: return try playing(command, request, box)
        case .tap:
            // The TAP button's own path: the box's tap-tempo rule (its tolerance) decides.
            box.handle(.gesture(.tap, .press, at: box.now))
            return state(box)
        case .songs, .putSongs, .importKlick: return try songs(command, request, box)
        case .sounds, .addSound, .deleteSound: return try sounds(command, request, box)
        case .preferences, .setPreferences, .midiMap, .putMIDIMap: return try settings(command, request, box)
        case .coach, .calibrateCoach: return try coach(command, box)
        case .practice: return files.practice()
        case .web, .pair, .auth, .browsers, .revoke: return try companion(command, request, box)
        case .subscribe:
            subscribers.insert(client)
            lastState = nil
            return state(box)
        }
    }

    /// `set` (state fields) and `transport` (START/STOP, or a song played).
    private func playing(_ command: WireCommand, _ request: JSONValue, _ box: Box) throws -> JSONObject {
        if command == .set {
            try checkVersion(request, current: stateTag(box), what: "the settings", extra: state(box))
            guard var fields = request[WireField.fields.name] else { throw ControlError(400, "fields is missing: give an object such as {\"bpm\":132}") }
            // Older spellings (`beat-unit`) read as the field's own.
            if case .object(let members) = fields { fields = .object(members.map { (WireField.canonical($0.key), $0.value) }) }
            // A client may send back the whole state object it read, changed: a field that is not
            // settable is passed over when it holds the box's value (a changed one is a 422 naming it).
            if case .object(let members) = fields, let current = try? JSONValue.parse(StateJSON.object(box.state).text) {
                fields = .object(members.filter { RemotePatch.settable.contains($0.key) || current[$0.key] != $0.value })
            }
            let (settings, playing) = try RemotePatch.apply(fields, to: box.state.settings, soundNames: box.state.soundNames)
            if settings != box.state.settings { act(.settings(settings), box) }
            if let playing { act(.transport(playing: playing), box) }
            return state(box)
        }
        guard let playing = request[WireField.playing.name]?.boolValue else { throw ControlError(400, "playing is missing: give true or false") }
        if playing, let song = request[WireField.song.name]?.stringValue {
            let choices = SongPractice.choices(box.state.saved).map(\.name)
            guard choices.contains(song) else {
                throw ControlError(422, "song \(JSONValue.quoted(song)) is not on the box: allowed \(choices.joined(separator: ", "))",
                                   extra: JSONObject { $0.add(.field, WireField.song.name) })
            }
            act(.playSong(song), box)
        } else {
            act(.transport(playing: playing), box)
        }
        return state(box)
    }

    /// `songs`, `put-songs` (checked as the settings file is) and `import-klick`.
    private func songs(_ command: WireCommand, _ request: JSONValue, _ box: Box) throws -> JSONObject {
        switch command {
        case .putSongs:
            let text = try string(request, .toml)
            try checkVersion(request, current: songsTag(box), what: "the songs",
                             extra: JSONObject { $0.add(.toml, RemotePatch.toml(box.state.saved.library)) })
            guard text.utf8.count <= ControlHub.maximumSongsBytes else {
                throw ControlError(413, "the songs are \(text.utf8.count) bytes: at most 256 KB (\(ControlHub.maximumSongsBytes) bytes)")
            }
            let library: SongLibrary
            do { library = try RemotePatch.library(fromTOML: text) } catch { throw ControlError(fileError: error) }
            try checkLimits(library, box)
            act(.library(library), box)
        case .importKlick:
            let text = try string(request, .map)
            let name = request[WireField.name.name]?.stringValue ?? "Imported"
            do {
                let song = try KlickTempoMap(parsing: text).song(name: name)
                return JSONObject { $0.add(.toml, SongFile.encode(SongLibrary(songs: [song]))) }
            } catch { throw ControlError(422, "tempo map: \(error)") }
        default: break
        }
        return JSONObject { $0.add(.toml, RemotePatch.toml(box.state.saved.library)) }
    }

    /// At most 64 songs of 256 sections each, and a settings file the box will read again.
    private func checkLimits(_ library: SongLibrary, _ box: Box) throws(ControlError) {
        guard library.songs.count <= ControlHub.maximumSongs else {
            throw ControlError(422, "\(library.songs.count) songs: at most \(ControlHub.maximumSongs) songs", extra: JSONObject { $0.add(.field, WireField.song.name) })
        }
        if let long = library.songs.first(where: { $0.sections.count > ControlHub.maximumSections }) {
            throw ControlError(422, "song \(JSONValue.quoted(long.name)) has \(long.sections.count) sections: at most \(ControlHub.maximumSections) sections a song",
                               extra: JSONObject { $0.add(.field, "song.section") })
        }
        var candidate = box.state.saved
        candidate.library = library
        let bytes = SettingsFile.encode(candidate).utf8.count
        guard bytes <= SettingsFile.maximumBytes else {
            throw ControlError(413, "the settings file would be \(bytes) bytes: at most 4 MiB (\(SettingsFile.maximumBytes) bytes)")
        }
    }

    /// `sounds`, `add-sound` (a spooled WAV checked and taken in) and `delete-sound`.
    private func sounds(_ command: WireCommand, _ request: JSONValue, _ box: Box) throws -> JSONObject {
        switch command {
        case .addSound:
            let set = try string(request, .set), file = try string(request, .file), path = try string(request, .path)
            guard !BuiltInSounds.names.contains(set) else { throw ControlError(409, "\(set) is a built-in sound set: choose another name") }
            guard let sounds = try files.addSound(set: set, file: file, from: path) else { return JSONObject { $0.add(.complete, false) } }
            box.engine.register(sounds)
            act(.soundAdded(set), box)
            return JSONObject { $0.add(.complete, true) }
        case .deleteSound:
            let set = try string(request, .set)
            guard !BuiltInSounds.names.contains(set), !files.isInstalled(set: set) else { throw ControlError(409, "\(set) is built in and cannot be deleted") }
            try files.removeSound(set: set)
            act(.soundRemoved(set), box)
            return JSONObject()
        default:
            let installed = box.state.soundNames.filter { !BuiltInSounds.names.contains($0) && files.isInstalled(set: $0) }
            return JSONObject {
                $0.add(.sounds, box.state.soundNames)
                $0.add(.builtIn, BuiltInSounds.names + installed)
                $0.add(.current, box.state.settings.sound)
            }
        }
    }

    /// `preferences` and `set-preferences` (Menu > Settings); `midi-map` and `put-midi-map`
    /// (the `[midi.map]` the box keeps in its settings file, in place of the configuration's).
    private func settings(_ command: WireCommand, _ request: JSONValue, _ box: Box) throws -> JSONObject {
        switch command {
        case .setPreferences:
            guard var fields = request[WireField.fields.name] else { throw ControlError(400, "fields is missing: give an object such as {\"momentum\":false}") }
            // Older spellings (`tap-tolerance`) read as the field's own.
            if case .object(let members) = fields { fields = .object(members.map { (WireField.canonical($0.key), $0.value) }) }
            act(.preferences(try RemotePatch.preferences(fields, to: box.state.saved.preferences)), box)
        case .putMIDIMap:
            guard let value = request[WireField.toml.name] else { throw ControlError(400, "toml is missing: give the [midi.map] table as a string, or null for the configuration's") }
            if value == .null {
                act(.midiMap(nil), box)
            } else {
                guard let text = value.stringValue else { throw ControlError(400, "toml is not a string: give the [midi.map] table, or null") }
                do { act(.midiMap(try RemotePatch.midiMap(fromTOML: text)), box) } catch { throw ControlError(fileError: error) }
            }
            return midiMap(box)
        case .midiMap:
            return midiMap(box)
        default: break
        }
        return JSONObject { $0.add(.preferences, RemotePatch.json(box.state.saved.preferences)) }
    }

    /// The map in effect and where it comes from: `"box"` (edited at the companion, in the
    /// settings file) or `"configuration"` (`[midi.map]` of the configuration file).
    private func midiMap(_ box: Box) -> JSONObject {
        let edited = box.state.saved.midiMap
        let map = edited ?? box.midiConfiguration.map
        return JSONObject {
            $0.add(.source, edited == nil ? "configuration" : "box")
            $0.add(.map, map.map { entry in JSONObject { $0.add(.message, entry.key); $0.add(.control, entry.control.text) } })
            $0.add(.toml, RemotePatch.toml(map))
        }
    }

    /// `coach` (the calibration: the input, whether it runs, the stored round trip) and
    /// `calibrate-coach` (Menu > Coach > Calibrate from afar: 409 without an input).
    private func coach(_ command: WireCommand, _ box: Box) throws -> JSONObject {
        if command == .calibrateCoach {
            guard box.coachInputAvailable else {
                throw ControlError(409, "the coach has no audio input: set [coach] input in the configuration file (README Coach)")
            }
            act(.calibrateCoach, box)
        }
        let roundTrip = box.state.saved.preferences.coachRoundTripMicroseconds.map { JSONNumber("\(Double($0) / 1000)") }
        return JSONObject {
            $0.add(.coach, JSONObject {
                $0.add(.input, box.coachInputAvailable)
                $0.add(.calibrating, box.state.calibratingCoach)
                $0.add(.roundTripMs, roundTrip)
                $0.add(.clickGainDb, box.state.saved.preferences.coachClickGainDecibels.map { JSONNumber("\($0)") })
                $0.add(.last, box.state.lastCoachCalibration)
            })
        }
    }

    /// `web` (on, where), `pair`, `auth`, `browsers` and `revoke`.
    private func companion(_ command: WireCommand, _ request: JSONValue, _ box: Box) throws -> JSONObject {
        switch command {
        case .web:
            return JSONObject {
                $0.add(.on, box.state.saved.preferences.companion)
                $0.add(.listen, configuration.listen)
            }
        case .pair:
            return try pair(request, box)
        case .auth:
            let token = try string(request, .token)
            guard box.state.saved.preferences.companion, let browser = box.state.companion.browser(token: token) else {
                throw ControlError(401, "not paired: pair this browser with the code shown on the box")
            }
            return JSONObject { $0.add(.browser, browser.id) }
        case .revoke:
            guard let id = request[WireField.browser.name]?.intValue else { throw ControlError(400, "browser is missing: give its number") }
            act(.revoke(browser: id), box)
            return JSONObject()
        default:
            let list = box.state.companion.browsers.map { b in JSONObject { $0.add(.id, b.id); $0.add(.name, b.name) } }
            return JSONObject { $0.add(.browsers, list) }
        }
    }

    private func pair(_ request: JSONValue, _ box: Box) throws -> JSONObject {
        let code = try string(request, .code), token = try string(request, .token)
        let name = Pairing.shortName(request[WireField.name.name]?.stringValue ?? "browser")
        // The client's address (the companion gives it): wrong codes lock that address only.
        let from = String((request[WireField.client.name]?.stringValue ?? "local").utf8.prefix(64)) ?? "local"
        guard token.utf8.count >= 32, token.utf8.count <= 128 else { throw ControlError(400, "token is invalid: 256 random bits in hex expected") }
        act(.pair(code: code, token: token, name: name, client: from), box)
        switch box.state.companion.lastPairing {
        case .paired(let id): return JSONObject { $0.add(.browser, id) }
        case .full:
            throw ControlError(422, "at most \(Companion.maximumBrowsers) paired browsers: revoke one first (Menu > Settings > Companion, or tactus ctl revoke N)",
                               extra: JSONObject { $0.add(.field, WireField.browser.name) })
        case .locked(let until):
            let seconds = max(1, (until.nanoseconds - box.now.nanoseconds + 999_999_999) / 1_000_000_000)
            throw ControlError(429, "pairing is locked for \(seconds) s for this address after 5 wrong codes", extra: JSONObject { $0.add(.retryAfter, seconds) })
        default:
            let locked = box.state.companion.isLocked(from, at: box.now) ? "; 5 wrong codes within a minute: pairing is now locked for 60 s" : ""
            throw ControlError(403, "wrong or expired pairing code: read the code on the box (Menu > Settings > Companion > Pair a browser)\(locked)")
        }
    }

    // MARK: live lines for subscribers

    public func box(_ box: Box, didStart onset: OnsetEvent, heardAt time: MonotonicTime) {
        guard !subscribers.isEmpty, onset.layer == 0, onset.kind <= .beat else { return }
        let ns = time.nanoseconds + clockOffset
        let line = JSONObject {
            $0.add(.type, WireEvent.beat)
            $0.add(.bar, onset.bar)
            $0.add(.beat, onset.beat)
            $0.add(.kind, onset.kind.name)
            $0.add(.ns, ns)
            $0.add(.mono, JSONNumber(ControlHub.mono(ns)))
            if onset.muted { $0.add(.muted, true) }
        }.text
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
        let list = beats.map { b in JSONObject { $0.add(.bar, b.bar); $0.add(.beat, b.beat); $0.add(.ns, b.time.nanoseconds + clockOffset) } }
        let line = JSONObject {
            $0.add(.type, WireEvent.beats)
            $0.add(.from, from.nanoseconds + clockOffset)
            $0.add(.beats, list)
        }.text
        for client in subscribers { send(client, line) }
    }

    public func box(_ box: Box, didChange state: BoxState, at time: MonotonicTime) {
        guard !subscribers.isEmpty else { return }
        var fields = StateJSON.fields(state)
        fields.add(.companion, state.saved.preferences.companion)
        guard fields.members != lastState else { return }
        lastState = fields.members
        var line = JSONObject()
        line.add(.type, WireEvent.state)
        line.add(.ns, time.nanoseconds + clockOffset)
        line.append(fields)
        for client in subscribers { send(client, line.text) }
    }
}

extension ControlError {
    /// With more members for the reply (`"line":3`).
    init(_ status: Int, _ description: String, extra: JSONObject) {
        self.init(status, description)
        self.extra = extra
    }

    /// A file the companion sent (songs, the MIDI map) that its reader refused: 422 with the
    /// reader's own message, its line and field.
    init(fileError error: TOMLError) {
        self.init(422, "\(error)", extra: JSONObject {
            $0.add(.line, error.line)
            $0.add(.field, ifPresent: error.field)
        })
    }
}

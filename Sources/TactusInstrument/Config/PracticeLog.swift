// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import TactusArithmetic
import TactusMusic

/// Minutes played per day, as kept in the state folder (`practice.toml`):
///
///     # Tactus practice log: minutes played per day (local time)
///     schema = 1
///
///     [minutes]
///     2026-11-23 = 42.5
///
/// and, after the minutes, one `[[session]]` per stretch of playing (START to STOP):
///
///     [[session]]
///     day = "2026-11-23"
///     song = "Blue Bossa"   # "" when no song played
///     minutes = 12.5
///     bpm = 132             # the fastest tempo played
///     hits = 64             # the coach's figures, when it listened: hits, mean and SD of
///     mean-ms = -1.6        # the error (ms, + late), the share within 10 and 25 ms (%)
///     sd-ms = 7.0
///     within-10ms = 79.7
///     within-25ms = 100.0
///     trainer = [           # an earned trainer's steps (README "Coach"), one a line:
///       { bar = 7, from-bar = 9, direction = "up", from-bpm = 120.0, to-bpm = 125.0, bars = 4, hits = 32, mean-ms = 0.4, sd-ms = 2.1 },
///     ]
///
/// Seconds are kept whole; the file holds minutes to 1/60 (two decimals, rounded). Like every
/// file in the state folder it carries a `schema`; a log written before it had one still loads.
public struct PracticeLog: Sendable, Hashable {
    public static let schema: Int64 = 1
    /// The sessions kept (the oldest go first): a year of daily practice and more.
    public static let sessionLimit = 2000

    /// Seconds played, by day ("YYYY-MM-DD").
    public private(set) var seconds: [String: Int64] = [:]
    /// Each stretch of playing, oldest first.
    public private(set) var sessions: [PracticeSession] = []

    public init() {}

    /// Reads the file's text; a line that cannot be used names its line.
    public init(parsing text: String, file: String) throws(SettingError) {
        let table: TOMLTable
        do { table = try TOML.parse(text, file: file) } catch {
            throw SettingError(field: file, value: "", allowed: "\(error)")
        }
        if let schema = table["schema"] {
            // A newer box's log is refused (and so kept aside by the caller), never rewritten as ours.
            guard let version = schema.integer, version >= 1, version <= PracticeLog.schema else {
                throw SettingError(field: "\(file):\(schema.line): schema", value: "\(schema.content)",
                                   allowed: "1 to \(PracticeLog.schema)")
            }
        }
        if let list = table["session"] {
            guard let items = list.array else {
                throw SettingError(field: "\(file):\(list.line): session", value: "\(list.content)", allowed: "[[session]] tables")
            }
            for (index, item) in items.enumerated() {
                sessions.append(try PracticeSession(item, index: index, file: file))
            }
        }
        guard let days = table["minutes"]?.table else { return }
        for day in days.keys {
            let value = days[day]!
            guard let minutes = value.double, PracticeLog.isDay(day), minutes >= 0, minutes <= 1440 else {
                throw SettingError(field: "\(file):\(value.line): minutes.\(day)", value: "\(value.content)",
                                   allowed: "YYYY-MM-DD = 0 to 1440 minutes")
            }
            seconds[day] = Int64((minutes * 60).rounded())
        }
    }

    static func isDay(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.map(\.count) == [4, 2, 2] && parts.allSatisfy { $0.allSatisfy(\.isNumber) }
    }

    public mutating func add(seconds played: Int64, day: String) {
        seconds[day, default: 0] += max(played, 0)
    }

    /// A stretch of playing: its minutes go to its day, and it is kept as a session.
    public mutating func add(_ session: PracticeSession) {
        add(seconds: session.seconds, day: session.day)
        sessions.append(session)
        if sessions.count > PracticeLog.sessionLimit { sessions.removeFirst(sessions.count - PracticeLog.sessionLimit) }
    }

    public func minutes(on day: String) -> Double { Double(seconds[day] ?? 0) / 60 }

    public var text: String {
        var lines = ["# Tactus practice log: minutes played per day (local time)", "schema = \(PracticeLog.schema)", "", "[minutes]"]
        for day in seconds.keys.sorted() {
            lines.append("\(day) = \(PracticeLog.minutes(seconds[day]!))")
        }
        for session in sessions {
            lines += ["", "[[session]]", "day = \"\(session.day)\"", "song = \(TOMLWriter.quoted(session.song))",
                      "minutes = \(PracticeLog.minutes(session.seconds))", "bpm = \(fixedDecimal(session.bpm, decimals: 3))"]
            if let coach = session.coach, coach.hits > 0 {
                lines += ["hits = \(coach.hits)", "mean-ms = \(fixedDecimal(coach.meanMs, decimals: 1))", "sd-ms = \(fixedDecimal(coach.sdMs, decimals: 1))",
                          "within-10ms = \(fixedDecimal(coach.within10Percent, decimals: 1))",
                          "within-25ms = \(fixedDecimal(coach.within25Percent, decimals: 1))"]
            }
            if let coach = session.coach, !coach.trainer.isEmpty {
                lines += ["trainer = ["] + coach.trainer.map { "  " + PracticeLog.line($0) + "," } + ["]"]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A trainer step as the log's inline table.
    static func line(_ s: TrainerStep) -> String {
        "{ bar = \(s.bar), from-bar = \(s.fromBar), direction = \"\(s.direction.rawValue)\", from-bpm = \(fixedDecimal(s.fromBPM, decimals: 3)), "
            + "to-bpm = \(fixedDecimal(s.toBPM, decimals: 3)), bars = \(s.bars), hits = \(s.hits), "
            + "mean-ms = \(fixedDecimal(s.meanMs, decimals: 1)), sd-ms = \(fixedDecimal(s.sdMs, decimals: 1)) }"
    }

    /// Seconds as minutes with two decimals, rounded.
    static func minutes(_ seconds: Int64) -> String {
        let hundredths = (seconds * 100 + 30) / 60
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}

/// The coach's figures for a session (README "Coach"): hits, the mean and SD of their error
/// in ms (+ late), and the share within 10 and 25 ms in percent.
public struct CoachFigures: Sendable, Hashable {
    public var hits: Int
    public var meanMs: Double
    public var sdMs: Double
    public var within10Percent: Double
    public var within25Percent: Double
    /// An earned trainer's steps in this session, oldest first.
    public var trainer: [TrainerStep]

    public init(hits: Int, meanMs: Double, sdMs: Double, within10Percent: Double, within25Percent: Double, trainer: [TrainerStep] = []) {
        self.trainer = trainer
        self.hits = hits
        self.meanMs = meanMs
        self.sdMs = sdMs
        self.within10Percent = within10Percent
        self.within25Percent = within25Percent
    }
}

/// One stretch of playing, START to STOP.
public struct PracticeSession: Sendable, Hashable {
    public var day: String
    /// The song played ("" when none).
    public var song: String
    public var seconds: Int64
    /// The fastest tempo played, in BPM.
    public var bpm: Double
    public var coach: CoachFigures?

    public init(day: String, song: String, seconds: Int64, bpm: Double, coach: CoachFigures? = nil) {
        self.day = day
        self.song = song
        self.seconds = seconds
        self.bpm = bpm
        self.coach = coach
    }

    init(_ value: TOMLValue, index: Int, file: String) throws(SettingError) {
        guard let t = value.table else {
            throw SettingError(field: "\(file):\(value.line): session[\(index)]", value: "\(value.content)", allowed: "a [[session]] table")
        }
        func field(_ key: String) -> String { "\(file):\(t[key]?.line ?? value.line): session[\(index)].\(key)" }
        func number(_ key: String, _ range: ClosedRange<Double>, allowed: String) throws(SettingError) -> Double? {
            guard let v = t[key] else { return nil }
            guard let d = v.double, range.contains(d) else { throw SettingError(field: field(key), value: "\(v.content)", allowed: allowed) }
            return d
        }
        let known: Set<String> = ["day", "song", "minutes", "bpm", "hits", "mean-ms", "sd-ms", "within-10ms", "within-25ms", "trainer"]
        if let unknown = t.keys.first(where: { !known.contains($0) }) {
            throw SettingError(field: field(unknown), value: "\(t[unknown]!.content)", allowed: "day, song, minutes, bpm and the coach's hits, mean-ms, sd-ms, within-10ms, within-25ms, trainer")
        }
        guard let day = t["day"]?.string, PracticeLog.isDay(day) else {
            throw SettingError(field: field("day"), value: t["day"].map { "\($0.content)" } ?? "missing", allowed: "\"YYYY-MM-DD\"")
        }
        guard let minutes = try number("minutes", 0...1440, allowed: "0 to 1440 minutes") else {
            throw SettingError(field: field("minutes"), value: "missing", allowed: "0 to 1440 minutes")
        }
        self.day = day
        song = t["song"]?.string ?? ""
        seconds = Int64((minutes * 60).rounded())
        bpm = try number("bpm", 0...999, allowed: "0 to 999 BPM") ?? 0
        if let hits = t["hits"] {
            guard let n = hits.integer, n >= 1, n <= 10_000_000 else {
                throw SettingError(field: field("hits"), value: "\(hits.content)", allowed: "a whole number of hits, 1 or more")
            }
            let missing = ["mean-ms", "sd-ms", "within-10ms", "within-25ms"].first { t[$0] == nil }
            if let missing { throw SettingError(field: field(missing), value: "missing", allowed: "hits come with mean-ms, sd-ms, within-10ms and within-25ms") }
            coach = CoachFigures(hits: Int(n), meanMs: try number("mean-ms", -1000...1000, allowed: "-1000 to 1000 ms")!,
                                 sdMs: try number("sd-ms", 0...1000, allowed: "0 to 1000 ms")!,
                                 within10Percent: try number("within-10ms", 0...100, allowed: "0 to 100 %")!,
                                 within25Percent: try number("within-25ms", 0...100, allowed: "0 to 100 %")!)
        }
        if let list = t["trainer"] {
            guard let items = list.array else { throw SettingError(field: field("trainer"), value: "\(list.content)", allowed: "a list of steps") }
            var steps: [TrainerStep] = []
            for item in items { steps.append(try PracticeSession.step(item, field: field("trainer"))) }
            if coach == nil { coach = CoachFigures(hits: 0, meanMs: 0, sdMs: 0, within10Percent: 0, within25Percent: 0) }
            coach?.trainer = steps
        }
    }
}

extension PracticeSession {
    /// One `trainer` step of a session (an inline table); a bad one names the field.
    static func step(_ value: TOMLValue, field: String) throws(SettingError) -> TrainerStep {
        let allowed = "{ bar, from-bar, direction (\"up\" or \"down\"), from-bpm, to-bpm, bars, hits, mean-ms, sd-ms }"
        guard let t = value.table,
              let bar = t["bar"]?.integer, let fromBar = t["from-bar"]?.integer,
              let direction = t["direction"]?.string.flatMap(TrainerStep.Direction.init(rawValue:)),
              let from = t["from-bpm"]?.double, let to = t["to-bpm"]?.double, (0...999).contains(from), (0...999).contains(to),
              let bars = t["bars"]?.integer, let hits = t["hits"]?.integer, bars >= 0, hits >= 0,
              let mean = t["mean-ms"]?.double, let sd = t["sd-ms"]?.double, abs(mean) <= 1000, (0...1000).contains(sd) else {
            throw SettingError(field: "\(field) (line \(value.line))", value: "\(value.content)", allowed: allowed)
        }
        return TrainerStep(direction: direction, bar: bar, fromBar: fromBar, fromBPM: from, toBPM: to, bars: Int(bars), hits: Int(hits),
                           meanMs: mean, sdMs: sd)
    }
}

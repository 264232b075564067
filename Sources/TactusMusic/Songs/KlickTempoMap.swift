// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// klick's tempo-map files (klick `src/tempomap.cc`, manual "Tempo Map File Format"),
/// read with exactly its grammar and its error messages:
///
/// ```
/// line    := blank* [LABEL ":"] blank* BARS [blank+ INT "/" INT] blank+ FLOAT
///            ["-" FLOAT | ("," FLOAT)*] [blank+ PATTERN] [blank+ FLOAT] blank* ["#" any*]
/// LABEL   := [A-Za-z0-9_-]+     BARS, INT := [0-9]+     PATTERN := [Xx.]+
/// FLOAT   := [0-9]+ ("." [0-9]*)? | "." [0-9]+
/// ```
///
/// Tempos are read as exact decimals (klick reads float32). The one difference: a line
/// ending in "\r" (a Windows file) fails klick's regex; here the "\r" is stripped and a
/// warning says so.
public struct KlickTempoMap: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var line: Int
        public var label: String
        public var bars: Int
        public var beats: Int
        public var denominator: Int
        /// Quarter notes per minute, whatever the meter.
        public var tempo: Rational
        /// The ramp's end tempo (`t1-t2`); nil for none (klick reads t2 = 0 as none).
        public var tempo2: Rational?
        /// One tempo per beat (`t1,t2,...`), bars x beats of them; empty otherwise.
        public var tempi: [Rational]
        public var pattern: String?
        public var volume: Rational
    }

    /// klick's message, then ":\nline N: <the line>".
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var line: Int
        public var text: String
        public var description: String { "\(message):\nline \(line): \(text)" }
    }

    public var entries: [Entry]
    /// Lines that were read with a change (a stripped "\r"), as "line N: ...".
    public var warnings: [String]

    public static let malformed = "malformed tempo map entry"
    public static let patternLength = "pattern length doesn't match number of beats"
    public static let tempoCount = "number of tempo values doesn't match number of beats"
    public static let tempoPositive = "tempo must be greater than zero"
    public static let barsPositive = "number of bars must be greater than zero"
    public static let invalidMeter = "invalid time signature"
    /// Tactus's own, in klick's words: klick plays nothing for such a map.
    public static let empty = "tempo map has no entries"

    /// A file klick cannot open, as klick words it since it reads `-` as stdin: `can't open tempo map file '<name>'`.
    public static func cannotOpen(_ name: String) -> String { "can't open tempo map file '\(name)'" }

    public init(parsing text: String) throws(ParseError) {
        entries = []
        warnings = []
        // By scalars: "\r\n" is one Character, and klick reads lines up to "\n" only.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        if text.unicodeScalars.last == "\n" { lines.removeLast() }
        for (index, raw) in lines.enumerated() {
            var line = raw
            let number = index + 1
            if line.unicodeScalars.last == "\r" {
                line.unicodeScalars.removeLast()
                warnings.append("line \(number): a Windows line end (\\r) was removed; klick itself rejects it")
            }
            if KlickTempoMap.isBlank(line) { continue }
            guard var entry = KlickTempoMap.match(line) else {
                throw ParseError(message: KlickTempoMap.malformed, line: number, text: line)
            }
            entry.line = number
            func fail(_ message: String) -> ParseError { ParseError(message: message, line: number, text: line) }
            if let p = entry.pattern, p.count != entry.beats { throw fail(KlickTempoMap.patternLength) }
            if !entry.tempi.isEmpty {
                // bars and beats come from the file: their product may not fit.
                let (beats, overflow) = entry.beats.multipliedReportingOverflow(by: entry.bars)
                if overflow || entry.tempi.count != beats { throw fail(KlickTempoMap.tempoCount) }
            }
            if (entry.tempi.isEmpty && entry.tempo <= .zero) || entry.tempi.contains(where: { $0 <= .zero }) {
                throw fail(KlickTempoMap.tempoPositive)
            }
            if entry.bars <= 0 { throw fail(KlickTempoMap.barsPositive) }
            if entry.beats <= 0 || entry.denominator <= 0 { throw fail(KlickTempoMap.invalidMeter) }
            entries.append(entry)
        }
    }

    static func isBlankChar(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// `^[[:blank:]]*(#.*)?$`
    static func isBlank(_ line: String) -> Bool {
        let bytes = Array(line.utf8)
        var i = 0
        while i < bytes.count && isBlankChar(bytes[i]) { i += 1 }
        return i == bytes.count || bytes[i] == UInt8(ascii: "#")
    }

    static func isLabelChar(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
    }

    /// A cursor over one line's bytes: klick's regex, token by token.
    struct LineScanner {
        let b: [UInt8]
        var i = 0

        init(_ bytes: [UInt8]) { b = bytes }

        mutating func blanks() -> Int { let s = i; while i < b.count && isBlankChar(b[i]) { i += 1 }; return i - s }
        mutating func digits() -> String? {
            let s = i
            while i < b.count && isDigit(b[i]) { i += 1 }
            return i > s ? String(decoding: b[s..<i], as: UTF8.self) : nil
        }
        mutating func float() -> String? {
            let s = i
            if i < b.count && isDigit(b[i]) {
                while i < b.count && isDigit(b[i]) { i += 1 }
                if i < b.count && b[i] == UInt8(ascii: ".") { i += 1; while i < b.count && isDigit(b[i]) { i += 1 } }
            } else if i + 1 < b.count && b[i] == UInt8(ascii: ".") && isDigit(b[i + 1]) {
                i += 1
                while i < b.count && isDigit(b[i]) { i += 1 }
            } else {
                return nil
            }
            return String(decoding: b[s..<i], as: UTF8.self)
        }
        /// The next byte is `c`.
        func peek(_ c: Unicode.Scalar) -> Bool { i < b.count && b[i] == UInt8(ascii: c) }
        /// At a token boundary: end, blank or comment.
        func atBoundary() -> Bool { i == b.count || isBlankChar(b[i]) || b[i] == UInt8(ascii: "#") }
    }

    /// The whole-line match; nil where klick's regex fails.
    static func match(_ line: String) -> Entry? {
        var scan = LineScanner(Array(line.utf8))
        _ = scan.blanks()
        var label = ""
        do {
            var j = scan.i
            while j < scan.b.count && KlickTempoMap.isLabelChar(scan.b[j]) { j += 1 }
            if j > scan.i && j < scan.b.count && scan.b[j] == UInt8(ascii: ":") {
                label = String(decoding: scan.b[scan.i..<j], as: UTF8.self)
                scan.i = j + 1
            }
        }
        _ = scan.blanks()
        guard let barsText = scan.digits() else { return nil }
        var beats = 4, denominator = 4
        // Meter: blank+ INT "/" INT, then blank+ before the tempo.
        let afterBars = scan.i
        if scan.blanks() > 0, let n = scan.digits(), scan.peek("/") {
            scan.i += 1
            guard let d = scan.digits() else { return nil }
            beats = Int(n) ?? Int.max
            denominator = Int(d) ?? Int.max
        } else {
            scan.i = afterBars
        }
        guard scan.blanks() > 0, let tempoText = scan.float() else { return nil }
        var tempo2Text: String?
        var tempiTexts: [String] = []
        if scan.peek("-") {
            scan.i += 1
            guard let t2 = scan.float() else { return nil }
            tempo2Text = t2
        } else {
            while scan.peek(",") {
                scan.i += 1
                guard let t = scan.float() else { return nil }
                tempiTexts.append(t)
            }
        }
        guard scan.atBoundary() else { return nil }
        var pattern: String?
        var volumeText: String?
        // [blank+ PATTERN] [blank+ FLOAT]
        var mark = scan.i
        if scan.blanks() > 0 {
            let s = scan.i
            while scan.peek("X") || scan.peek("x") || scan.peek(".") { scan.i += 1 }
            if scan.i > s && scan.atBoundary() {
                pattern = String(decoding: scan.b[s..<scan.i], as: UTF8.self)
                mark = scan.i
            } else {
                scan.i = mark
            }
        }
        if scan.blanks() > 0, let v = scan.float(), scan.atBoundary() {
            volumeText = v
            mark = scan.i
        } else {
            scan.i = mark
        }
        _ = scan.blanks()
        guard scan.i == scan.b.count || scan.peek("#") else { return nil }

        let tempo = KlickTempoMap.decimal(tempoText)
        var tempi: [Rational] = []
        if !tempiTexts.isEmpty { tempi = [tempo] + tempiTexts.map(KlickTempoMap.decimal) }
        let tempo2 = tempo2Text.map(KlickTempoMap.decimal).flatMap { $0 == .zero ? nil : $0 }
        return Entry(line: 0, label: label, bars: Int(barsText) ?? Int.max, beats: beats, denominator: denominator,
                     tempo: tempo, tempo2: tempo2, tempi: tempi, pattern: pattern,
                     volume: volumeText.map(KlickTempoMap.decimal) ?? .one)
    }

    /// A klick float as Tactus reads it: exact, rounded to 3 decimals.
    static func decimal(_ s: String) -> Rational {
        // "120." and ".5" are valid klick floats.
        var t = s
        if t.hasSuffix(".") { t.removeLast() }
        if t.hasPrefix(".") { t = "0" + t }
        if let dot = t.firstIndex(of: "."), t.distance(from: dot, to: t.endIndex) > 10 {
            t = String(t[..<t.index(dot, offsetBy: 10)]) // beyond 9 decimals float32 cannot tell anyway
        }
        var digitsOnly = t
        while digitsOnly.count > 1 && digitsOnly.hasPrefix("0") && !digitsOnly.hasPrefix("0.") { digitsOnly.removeFirst() }
        if digitsOnly.count > 15 { return Rational(Int64.max / 2) } // absurd, caught by range checks
        // Rounded to Tactus's 3 decimals (klick reads float32, about 7 digits): the
        // ramps square and multiply tempos, and 3 decimals keep that exact.
        guard let exact = Rational(parsing: digitsOnly) else { return .zero }
        guard let scaled = exact.multiplied(by: Rational(1000)) else { return exact }
        return Rational(scaled.rounded, 1000)
    }
}

extension KlickTempoMap {
    /// The same click track as a song: a section per entry, tempo in the meter's note
    /// (bpm = t d / 4: a 7/8 line at 150 is 300 eighths per minute), ramps linear in beat
    /// index (klick's model), per-beat lists as steps, patterns verbatim, volume as gain.
    public func song(name: String, countIn: CountIn = .none, tempoMultiplier: Rational = .one) throws(ParseError) -> Song {
        // A song needs a section: an empty map would become a file Tactus refuses (found by
        // the klick-map fuzz target).
        guard !entries.isEmpty else { throw ParseError(message: KlickTempoMap.empty, line: 1, text: "") }
        var sections: [SongSection] = []
        for e in entries {
            func fail(_ message: String) -> ParseError { ParseError(message: message, line: e.line, text: "") }
            guard Meter.range.contains(e.beats), Meter.range.contains(e.denominator),
                  let meter = try? Meter(e.beats, e.denominator), let unit = try? BeatUnit(division: e.denominator)
            else { throw fail("time signature \(e.beats)/\(e.denominator) is beyond Tactus's 1 to 99") }
            guard SongSection.barRange.contains(e.bars) else { throw fail("\(e.bars) bars is beyond Tactus's \(SongSection.barRange.upperBound)") }
            let scale = Rational(Int64(e.denominator), 4)
            func bpm(_ t: Rational) throws(ParseError) -> Rational {
                guard let v = t.multiplied(by: scale), v <= TempoSegment.maximumBPM,
                      let thousandths = v.multiplied(by: Rational(1000)) else {
                    throw fail("tempo \(t.decimalDescription) x \(e.denominator)/4 BPM of 1/\(e.denominator) notes is beyond Tactus's 9999")
                }
                // The meter's note's tempo is rounded to Tactus's 3 decimals too: t d / 4 has
                // up to 5 (40.81 in 3/41 is 418.3025), which a songs file refuses (found by
                // the klick-map fuzz target).
                let rounded = Rational(thousandths.rounded, 1000)
                guard rounded > .zero else {
                    throw fail("tempo \(t.decimalDescription) x \(e.denominator)/4 BPM of 1/\(e.denominator) notes is below Tactus's 0.001")
                }
                return rounded
            }
            let tempo: TempoSegment
            if !e.tempi.isEmpty {
                var list: [Rational] = []
                for t in e.tempi { list.append(try bpm(t)) }
                tempo = .perBeat(list)
            } else if let t2 = e.tempo2 {
                tempo = .rampBeats(from: try bpm(e.tempo), to: try bpm(t2))
            } else {
                tempo = .constant(try bpm(e.tempo))
            }
            let accents = e.pattern.flatMap { try? AccentPattern(parsing: $0) } ?? .downbeat
            // A section's gain is 0 to 400 % (SongFile): a louder volume would be written
            // as a file Tactus then refuses.
            guard let gain = e.volume.multiplied(by: Rational(100)), gain <= SongSection.gainRange.upperBound else {
                throw fail("volume \(e.volume.decimalDescription) is beyond Tactus's 0 to 4 (a gain of 0 to 400 %)")
            }
            sections.append(SongSection(label: e.label, bars: e.bars, meter: meter, beatUnit: unit, tempo: tempo,
                                        accents: accents, gainPercent: gain))
        }
        return Song(name: name, countIn: countIn, practiceTempoPercent: tempoMultiplier * Rational(100), sections: sections)
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import TactusArithmetic
import TactusMusic
import TactusBase

/// A line of a change script that cannot be used; names the file and line.
public struct ScriptError: Error, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let problem: String
    public var description: String { oneLine("\(file):\(line): \(problem)") }
}

/// Timed changes for `tactus render --changes FILE`, one per line (a command-line format: the
/// engine sees only the `TimedChange`s RenderJob makes of it):
///     <seconds> set bpm=150 meter=5/4 volume=accent=80,beat=60
///     <seconds> stop
///     <seconds> start
/// Blank lines and text after `#` are ignored. Each `set` applies on top of the settings
/// in force at that moment, exactly as a live change at that sample.
public struct ChangeScript {
    public enum Step {
        case set([(name: String, value: String)])
        case start
        case stop
    }

    public var steps: [(seconds: Rational, line: Int, step: Step)] = []

    public init(text: String, file: String) throws(ScriptError) {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let first = words.first else { continue }
            guard let seconds = Rational(parsing: first), !first.contains("/"), seconds >= .zero, seconds <= Rational(86_400) else {
                throw ScriptError(file: file, line: line, problem: "time '\(first)' is invalid: expected seconds from 0 to 86400, e.g. 12.5")
            }
            guard words.count >= 2 else {
                throw ScriptError(file: file, line: line, problem: "expected 'set NAME=VALUE ...', 'start' or 'stop' after the time")
            }
            switch words[1] {
            case "start" where words.count == 2: steps.append((seconds, line, .start))
            case "stop" where words.count == 2: steps.append((seconds, line, .stop))
            case "set" where words.count > 2:
                var assignments: [(String, String)] = []
                for word in words[2...] {
                    let pair = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard pair.count == 2, let setting = SettingName(spelling: String(pair[0])) else {
                        throw ScriptError(file: file, line: line, problem: "'\(word)' is invalid: expected NAME=VALUE with NAME one of \(SettingName.names.joined(separator: ", "))")
                    }
                    assignments.append((setting.name, String(pair[1])))
                }
                steps.append((seconds, line, .set(assignments)))
            default:
                throw ScriptError(file: file, line: line, problem: "'\(words[1...].joined(separator: " "))' is invalid: expected 'set NAME=VALUE ...', 'start' or 'stop'")
            }
        }
        steps.sort { $0.seconds < $1.seconds }
    }
}

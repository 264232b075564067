// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader

// The spoken count's file format lives here, beside the song files, so that ClickEngine (which
// plays the words: VoiceSet) holds no file format and does not import TOMLReader (issue 29).
/// A voice folder's `voice.toml`: which WAV (WORD.wav beside it) is spoken where, and each
/// word's lead in frames of its own WAV:
///
///     language = "en"
///     numbers = ["1", "2", ..., "16"]   # beat 1, 2, ... (at most 16)
///     layer2 = ["and"]                  # each list holds n - 1 words (or is left out)
///     layer3 = ["trip", "let"]
///     layer4 = ["e", "and", "a"]
///     count_in = ["ready", "go"]        # the count-in's last two beats (optional)
///     [lead]
///     1 = 964                           # frames of 1.wav from its first sample to its centre
public struct VoiceDescription: Sendable, Equatable {
    public static let fileName = "voice.toml"
    public static let maximumNumbers = 16

    public var language: String
    public var numbers: [String]
    /// Layers 2, 3, 4: the words of steps 1..<n (empty: the subdivision click).
    public var layers: [[String]]
    public var countIn: [String]
    public var leads: [String: Int]

    /// Every word the description names, once, in order.
    public var words: [String] {
        var seen: Set<String> = []
        return (numbers + layers.flatMap { $0 } + countIn).filter { seen.insert($0).inserted }
    }

    public static func parse(_ text: String, file: String) throws(TOMLError) -> VoiceDescription {
        let root = TOMLSection(try TOML.parse(text, file: file), file: file)
        try root.rejectUnknownKeys(allowed: ["language", "numbers", "layer2", "layer3", "layer4", "count_in", "lead"])
        let language = try root.required(try root.string("language"), "language", allowed: "a language tag in quotes, e.g. \"en\"")
        let numbers = try words(root, "numbers", count: 1...maximumNumbers)
        var layers: [[String]] = []
        for n in 2...4 {
            layers.append(root.has("layer\(n)") ? try words(root, "layer\(n)", count: (n - 1)...(n - 1)) : [])
        }
        let countIn = root.has("count_in") ? try words(root, "count_in", count: 2...2) : []
        guard let leadSection = try root.section("lead") else {
            throw TOMLError(file: file, line: 0, field: "lead", message: "missing; a [lead] table with each word's lead in frames")
        }
        var leads: [String: Int] = [:]
        for key in leadSection.table.keys {
            leads[key] = try leadSection.integer(key, in: 0...(2 * 384_000))
        }
        let description = VoiceDescription(language: language, numbers: numbers, layers: layers, countIn: countIn, leads: leads)
        for word in description.words where leads[word] == nil {
            throw TOMLError(file: file, line: leadSection.table.line, field: leadSection.field(word),
                            message: "missing; every word needs its lead in frames")
        }
        return description
    }

    private static func words(_ root: TOMLSection, _ key: String, count: ClosedRange<Int>) throws(TOMLError) -> [String] {
        let allowed = count.count == 1 ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)"
        guard let items = root.table[key]?.array, count.contains(items.count) else {
            throw root.invalid(key, allowed: "expected a list of \(allowed) word names in quotes (WORD.wav in the folder)")
        }
        var names: [String] = []
        for item in items {
            guard let name = item.string, !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
                throw root.invalid(key, allowed: "expected a list of \(allowed) word names in quotes (WORD.wav in the folder)")
            }
            names.append(name)
        }
        return names
    }
}

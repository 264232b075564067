// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TOMLReader
import TactusBase

/// Reads boards/*.toml (format in boards/README.md) into a `BoardDefinition`. Every error
/// names the file, line, field, value and what is allowed.
public enum BoardFile {
    public static func parse(_ text: String, file: String, identifier: String) throws(TOMLError) -> BoardDefinition {
        let root = TOMLSection(try TOML.parse(text, file: file), file: file)
        try root.rejectUnknownKeys(allowed: ["board", "gpio", "encoder", "inputs", "outputs", "display", "audio"])

        let board = try root.required(try root.section("board"), "board", allowed: "a [board] table with model = \"...\"")
        try board.rejectUnknownKeys(allowed: ["model"])
        let model = try board.required(try board.string("model"), "model", allowed: "the board's name in quotes")

        let gpio = try root.required(try root.section("gpio"), "gpio", allowed: "a [gpio] table with chip = \"<label from gpiodetect>\"")
        try gpio.rejectUnknownKeys(allowed: ["chip"])
        let chip = try gpio.required(try gpio.string("chip"), "chip", allowed: "the GPIO chip's label as `gpiodetect` prints it")

        var inputs: [InputLineDefinition] = []
        // Each line's table, to name where a line used twice is written.
        var lineTables: [(field: String, table: TOMLSection)] = []
        if let section = try root.section("inputs") {
            try section.rejectUnknownKeys(allowed: InputRole.allCases.map(\.rawValue))
            for role in InputRole.allCases {
                guard let line = try section.section(role.rawValue) else { continue }
                try line.rejectUnknownKeys(allowed: ["line", "chip", "bias", "active_low"])
                let biasNames = ["pull-up", "pull-down", "disabled", "as-is"]
                let bias = try line.string("bias", oneOf: biasNames).flatMap(LineBias.init(rawValue:)) ?? .pullUp
                lineTables.append(("inputs.\(role.rawValue)", line))
                inputs.append(InputLineDefinition(role: role, chipLabel: try line.string("chip") ?? chip,
                                                  line: try selector(line), bias: bias,
                                                  activeLow: try line.bool("active_low") ?? true))
            }
        }

        var outputs: [OutputLineDefinition] = []
        if let section = try root.section("outputs") {
            try section.rejectUnknownKeys(allowed: IndicatorChannel.allCases.map(\.rawValue))
            for indicator in IndicatorChannel.allCases {
                guard let line = try section.section(indicator.rawValue) else { continue }
                try line.rejectUnknownKeys(allowed: ["line", "chip", "active_low"])
                lineTables.append(("outputs.\(indicator.rawValue)", line))
                outputs.append(OutputLineDefinition(indicator: indicator, chipLabel: try line.string("chip") ?? chip,
                                                    line: try selector(line), activeLow: try line.bool("active_low") ?? false))
            }
        }
        try rejectSharedLines(inputs: inputs, outputs: outputs, tables: lineTables)

        let display = try displaySection(root)
        let audio = try audioSection(root)
        let encoder = try encoderSection(root)

        return BoardDefinition(identifier: identifier, model: model, inputs: inputs, outputs: outputs, display: display,
                               audio: audio, encoder: encoder)
    }

    /// [display]: the panel's controller, size, bus, address and transfer mode (none: no panel).
    private static func displaySection(_ root: TOMLSection) throws(TOMLError) -> DisplayDefinition? {
        var display: DisplayDefinition?
        if let section = try root.section("display") {
            try section.rejectUnknownKeys(allowed: ["controller", "width", "height", "i2c_bus", "address", "transfer"])
            let controller = try section.string("controller", oneOf: ["ssd1306", "sh1106"]).flatMap(DisplayController.init(rawValue:)) ?? .ssd1306
            let width = try section.integer("width", in: 128...128) ?? 128
            let height = try section.integer("height", in: 32...64) ?? 64
            guard height == 64 || (height == 32 && controller == .ssd1306) else {
                throw section.invalid("height", allowed: controller == .sh1106 ? "allowed 64 for an SH1106" : "allowed 32 or 64")
            }
            let addressValue = try section.integer("address", in: 0x3C...0x3D) ?? 0x3C
            display = DisplayDefinition(controller: controller, width: width, height: height,
                                        i2cBus: try section.integer("i2c_bus", in: 0...255) ?? 1,
                                        address: I2CAddress(UInt8(addressValue))!,
                                        transferMode: try section.string("transfer", oneOf: ["auto", "i2c", "smbus"]).flatMap(I2CTransferMode.init(rawValue:)) ?? .automatic)
        }
        return display
    }

    /// [audio]: the ALSA device and its format (defaults where absent).
    private static func audioSection(_ root: TOMLSection) throws(TOMLError) -> AudioDefinition {
        var audio = AudioDefinition()
        if let section = try root.section("audio") {
            try section.rejectUnknownKeys(allowed: ["device", "sample_rate", "channels", "period_frames", "periods"])
            audio.device = try section.string("device") ?? audio.device
            audio.sampleRate = try section.integer("sample_rate", in: 8000...192_000) ?? audio.sampleRate
            audio.channels = try section.integer("channels", in: 1...8) ?? audio.channels
            audio.periodFrames = try section.integer("period_frames", in: 16...8192) ?? audio.periodFrames
            audio.periodCount = try section.integer("periods", in: 2...16) ?? audio.periodCount
        }
        return audio
    }

    /// [encoder]: steps per detent and direction.
    private static func encoderSection(_ root: TOMLSection) throws(TOMLError) -> EncoderDefinition {
        var encoder = EncoderDefinition()
        if let section = try root.section("encoder") {
            try section.rejectUnknownKeys(allowed: ["steps_per_detent", "reverse"])
            if let steps = try section.integer("steps_per_detent", in: 1...4) {
                guard steps != 3 else { throw section.invalid("steps_per_detent", allowed: "allowed 1, 2 or 4 (see the encoder's datasheet)") }
                encoder.stepsPerDetent = steps
            }
            encoder.reverse = try section.bool("reverse") ?? false
        }
        return encoder
    }

    private static func selector(_ section: TOMLSection) throws(TOMLError) -> GPIOLineSelector {
        let allowed = "a line offset (0-511) or a line name in quotes, as `gpioinfo` shows"
        guard let value = section.table["line"] else {
            throw TOMLError(file: section.file, line: section.table.line, field: section.field("line"), message: "missing; \(allowed)")
        }
        if let offset = value.integer, (0...511).contains(offset) { return .offset(Int(offset)) }
        if let name = value.string, !name.isEmpty { return .name(name) }
        throw section.invalid("line", allowed: allowed)
    }

    /// `tables` holds the table of every input, then every output, in the same order.
    private static func rejectSharedLines(inputs: [InputLineDefinition], outputs: [OutputLineDefinition],
                                          tables: [(field: String, table: TOMLSection)]) throws(TOMLError) {
        var seen: [String: String] = [:]
        let all = inputs.map { ($0.chipLabel, $0.line) } + outputs.map { ($0.chipLabel, $0.line) }
        for ((chip, line), (field, table)) in zip(all, tables) {
            let key = "\(chip)/\(line)"
            if let other = seen[key] {
                throw table.invalid("line", allowed: "already used by \(other); each part needs its own line")
            }
            seen[key] = field
        }
    }
}

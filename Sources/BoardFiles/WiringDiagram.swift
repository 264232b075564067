// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// The wiring diagram of a board file as an SVG: the 40-pin header seen from above, one wire
/// from each pin the board uses to its part, and each part with what else it needs (resistor,
/// transistor, ground). Drawn from the board definition alone, so docs/wiring/*.svg cannot
/// drift from boards/*.toml (`tactus wiring`, and a test that regenerates them).
public enum WiringDiagram {
    /// The Raspberry Pi 40-pin header: BCM GPIO number of each physical pin (nil: power or ground).
    static let headerGPIO: [Int: Int] = [
        3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10, 21: 9, 22: 25,
        23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21,
    ]
    static let power: [Int: String] = [1: "3V3", 17: "3V3", 2: "5V", 4: "5V"]
    static let ground: [Int] = [6, 9, 14, 20, 25, 30, 34, 39]

    /// The header pin of a BCM GPIO line, or nil (a line given by name, or not on the header).
    public static func headerPin(gpio: Int) -> Int? { headerGPIO.first { $0.value == gpio }?.key }

    static func pinName(_ pin: Int) -> String {
        if let gpio = headerGPIO[pin] { return "GPIO\(gpio)" }
        return power[pin] ?? "GND"
    }

    /// One wire end at a part: its label at the part, and the header pin (nil: no pin to draw).
    struct Terminal {
        var label: String
        var pin: Int?
        var note: String?
    }

    struct Part {
        var title: String
        var terminals: [Terminal]
        var lines: [String]
        var colour: String
    }

    public static func svg(_ board: BoardDefinition, file: String) -> String {
        let parts = self.parts(board)
        let width = 1040
        let headerLeft = 180, pitch = 34
        let headerTop = 130
        // The pins' centres: odd pins (1, 3, ...) in the lower row, as the header sits at the
        // board's top edge with pin 1 at the left.
        func pinPoint(_ pin: Int) -> (x: Int, y: Int) {
            (headerLeft + 20 + ((pin - 1) / 2) * pitch, headerTop + (pin % 2 == 1 ? 52 : 22))
        }
        let wires = parts.flatMap { part in part.terminals.filter { $0.pin != nil } }
        let laneTop = headerTop + 112, laneGap = 12
        let partsTop = laneTop + wires.count * laneGap + 30
        let partWidth = (width - 40) / max(parts.count, 1) - 10
        let partHeight = 150
        let height = partsTop + partHeight + 120

        var svg = SVGWriter(width: width, height: height)
        svg.text(20, 34, "Tactus wiring: \(board.model)", size: 22, weight: "bold")
        svg.text(20, 58, "Drawn from \(file) by `tactus wiring --board \(board.identifier)`. Header seen from above, pin 1 at the lower left.", size: 13)
        drawHeader(&svg, left: headerLeft, top: headerTop, pitch: pitch, used: Set(wires.compactMap(\.pin)), pinPoint: pinPoint)

        // Wires: down from the pin, along its own lane, down into its part's terminal.
        var lane = 0
        for (index, part) in parts.enumerated() {
            let left = 20 + index * (partWidth + 10)
            svg.rect(left, partsTop, partWidth, partHeight, fill: "#ffffff", stroke: part.colour, radius: 6, strokeWidth: 2)
            svg.text(left + partWidth / 2, partsTop + 54, part.title, size: 12, anchor: "middle", weight: "bold")
            for (row, line) in part.lines.enumerated() {
                svg.text(left + 6, partsTop + 74 + row * 15, line, size: 10)
            }
            let step = partWidth / (part.terminals.count + 1)
            for (t, terminal) in part.terminals.enumerated() {
                let tx = left + step * (t + 1)
                svg.circle(tx, partsTop, 4, fill: part.colour, stroke: "#111111")
                svg.text(tx, partsTop + 16, terminal.label, size: 9, anchor: "middle")
                if let note = terminal.note { svg.text(tx, partsTop + 28, note, size: 8, anchor: "middle") }
                guard let pin = terminal.pin else {
                    svg.text(tx, partsTop - 8, "no header pin", size: 8, anchor: "middle")
                    continue
                }
                let (px, py) = pinPoint(pin)
                // Wires leave beside their pin (even pins to the right, odd to the left), between
                // two columns, clear of the pin names and of the other row's pins.
                let x0 = pin % 2 == 0 ? px + 13 : px - 13
                let y = laneTop + lane * laneGap
                let points = [(px, py), (x0, py), (x0, y), (tx, y), (tx, partsTop)]
                svg.polyline(points, stroke: part.colour)
                svg.text(tx + 3, partsTop - 6, "pin \(pin)", size: 8)
                lane += 1
            }
        }
        let notes = [
            "Ground: every part's GND goes to any GND pin (6, 9, 14, 20, 25, 30, 34, 39). Inputs use the Pi's own pull-ups (bias in the board file).",
            "Audio: ALSA device \"\(board.audio.device)\" at \(board.audio.sampleRate) Hz: the board's jack, a USB sound card, or an I2S DAC (PCM5102A:",
            "BCK GPIO18 pin 12, LRCK GPIO19 pin 35, DIN GPIO21 pin 40; those pins stay free in this wiring). Models and values: docs/parts.md.",
        ]
        for (row, note) in notes.enumerated() {
            svg.text(20, partsTop + partHeight + 30 + row * 18, note, size: 12)
        }
        return svg.finish()
    }

    /// The header: 2 x 20 pins, numbered, named, the used ones marked.
    static func drawHeader(_ svg: inout SVGWriter, left headerLeft: Int, top headerTop: Int, pitch: Int, used: Set<Int>,
                           pinPoint: (Int) -> (x: Int, y: Int)) {
        // The header.
        svg.rect(headerLeft, headerTop + 6, 20 * pitch + 6, 62, fill: "#2f4f2f", stroke: "#1c2e1c", radius: 4)
        for pin in 1...40 {
            let (x, y) = pinPoint(pin)
            let used = used.contains(pin)
            let fill = used ? "#ffd54a" : (ground.contains(pin) ? "#555555" : (power[pin] != nil ? "#d9534f" : "#c8c8c8"))
            svg.circle(x, y, 9, fill: fill, stroke: "#111111")
            svg.text(x, y + 4, "\(pin)", size: 9, anchor: "middle", weight: "bold")
            // Names run vertically, so wires pass beside them.
            if pin % 2 == 1 {
                svg.text(x + 3, y + 14, pinName(pin), size: 8, anchor: "end", rotate: -90)
            } else {
                svg.text(x + 3, y - 14, pinName(pin), size: 8, anchor: "start", rotate: -90)
            }
        }
        svg.text(headerLeft - 10, headerTop + 26, "pins 2, 4 ... 40", size: 11, anchor: "end")
        svg.text(headerLeft - 10, headerTop + 56, "pins 1, 3 ... 39", size: 11, anchor: "end")
    }

    static func parts(_ board: BoardDefinition) -> [Part] {
        func input(_ role: InputRole) -> InputLineDefinition? { board.inputs.first { $0.role == role } }
        func output(_ channel: IndicatorChannel) -> OutputLineDefinition? { board.outputs.first { $0.indicator == channel } }
        func pin(_ line: GPIOLineSelector) -> Int? {
            if case .offset(let gpio) = line { return headerPin(gpio: gpio) }
            return nil
        }
        func note(_ line: GPIOLineSelector) -> String? {
            if case .name(let name) = line { return name }
            return nil
        }
        // A switch closes to GND when the line is pulled up and active low, else to 3V3.
        func switchTo(_ line: InputLineDefinition) -> String { line.activeLow ? "GND" : "3V3" }

        var parts: [Part] = []
        if let display = board.display {
            let (sda, scl): (Int?, Int?) = display.i2cBus == 1 ? (3, 5) : display.i2cBus == 0 ? (27, 28) : (nil, nil)
            parts.append(Part(title: "OLED \(display.controller.rawValue.uppercased())", terminals: [
                Terminal(label: "VCC", pin: 1), Terminal(label: "SDA", pin: sda), Terminal(label: "SCL", pin: scl),
            ], lines: ["\(display.width)x\(display.height), I2C", "bus \(display.i2cBus), address \(display.address)", "GND to GND"],
            colour: "#1f77b4"))
        }
        let encoder = [InputRole.encoderA, .encoderB, .encoderPush].compactMap(input)
        if !encoder.isEmpty {
            let labels: [InputRole: String] = [.encoderA: "A", .encoderB: "B", .encoderPush: "SW"]
            parts.append(Part(title: "Wheel (encoder)", terminals: encoder.map {
                Terminal(label: labels[$0.role] ?? "", pin: pin($0.line), note: note($0.line))
            }, lines: ["PEC11R with push", "C and SW's other leg", "to \(encoder.first.map(switchTo) ?? "GND")",
                       "\(board.encoder.stepsPerDetent) steps per detent"], colour: "#2ca02c"))
        }
        let buttons: [(InputRole, String, [String])] = [
            (.tap, "TAP", ["push button"]), (.startStop, "START/STOP", ["push button"]), (.footswitch, "Footswitch", ["6.35 mm jack", "tip to the pin", "sleeve"]),
        ]
        for (role, title, lines) in buttons {
            guard let line = input(role) else { continue }
            parts.append(Part(title: title, terminals: [Terminal(label: role == .footswitch ? "tip" : "SW", pin: pin(line.line), note: note(line.line))],
                              lines: lines + ["to \(switchTo(line))"], colour: "#9467bd"))
        }
        let leds: [(IndicatorChannel, String, String, String)] = [
            (.accentLED, "Accent LED", "red", "#d62728"), (.beatLED, "Beat LED", "green", "#17a34a"), (.subdivisionLED, "Sub LED", "yellow", "#b8860b"),
        ]
        for (channel, title, colourName, colour) in leds {
            guard let line = output(channel) else { continue }
            let lines = line.activeLow ? ["\(colourName), 330 ohm", "anode via 330 ohm", "to 3V3, cathode", "to the pin"]
                                       : ["\(colourName), 3 mm", "pin, 330 ohm,", "anode; cathode", "to GND"]
            parts.append(Part(title: title, terminals: [Terminal(label: line.activeLow ? "K" : "R", pin: pin(line.line), note: note(line.line))],
                              lines: lines, colour: colour))
        }
        if let line = output(.buzzer) {
            parts.append(Part(title: "Buzzer", terminals: [
                Terminal(label: "1k", pin: pin(line.line), note: note(line.line)), Terminal(label: "+5V", pin: 2),
            ], lines: ["pin, 1 kohm, NPN base", "2N2222/BC337:", "E to GND, C to buzzer-", "buzzer+ to 5V", "1N4148 across buzzer"],
            colour: "#ff7f0e"))
        }
        return parts
    }
}

/// A small SVG writer: fixed attribute order and integer coordinates, so the same board
/// always gives the same bytes.
struct SVGWriter {
    private var body = ""
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    mutating func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int, fill: String, stroke: String, radius: Int = 0, strokeWidth: Int = 1) {
        body += "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(w)\" height=\"\(h)\" rx=\"\(radius)\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"\(strokeWidth)\"/>\n"
    }

    mutating func circle(_ x: Int, _ y: Int, _ r: Int, fill: String, stroke: String) {
        body += "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"\(r)\" fill=\"\(fill)\" stroke=\"\(stroke)\"/>\n"
    }

    mutating func polyline(_ points: [(Int, Int)], stroke: String) {
        let list = points.map { "\($0.0),\($0.1)" }.joined(separator: " ")
        body += "<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"2\"/>\n"
    }

    mutating func text(_ x: Int, _ y: Int, _ text: String, size: Int, anchor: String = "start", weight: String = "normal", rotate: Int = 0) {
        let turn = rotate == 0 ? "" : " transform=\"rotate(\(rotate) \(x) \(y))\""
        body += "<text x=\"\(x)\" y=\"\(y)\" font-size=\"\(size)\" text-anchor=\"\(anchor)\" font-weight=\"\(weight)\"\(turn)>\(Self.escaped(text))</text>\n"
    }

    func finish() -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- SPDX-License-Identifier: GPL-3.0-or-later -->
        <!-- Generated by `tactus wiring`; do not edit (a test regenerates it). -->
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="DejaVu Sans, Arial, sans-serif">
        <rect x="0" y="0" width="\(width)" height="\(height)" fill="#fafafa"/>

        """ + body + "</svg>\n"
    }
}

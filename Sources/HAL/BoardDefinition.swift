// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// A GPIO line: by offset on its chip, or by the name the device tree gives it.
public enum GPIOLineSelector: Hashable, Sendable, CustomStringConvertible {
    case offset(Int)
    case name(String)

    public var description: String {
        switch self {
        case .offset(let offset): "line \(offset)"
        case .name(let name): "line \"\(name)\""
        }
    }
}

/// The bias the kernel sets on an input line.
public enum LineBias: String, Hashable, Sendable {
    case pullUp = "pull-up"
    case pullDown = "pull-down"
    case disabled
    /// Leave whatever the device tree (or an overlay) configured.
    case asIs = "as-is"
}

public struct InputLineDefinition: Hashable, Sendable {
    public var role: InputRole
    /// The chip's label (`gpiodetect` shows it), not its number: numbers change between kernels.
    public var chipLabel: String
    public var line: GPIOLineSelector
    public var bias: LineBias
    /// True for switches to ground with a pull-up: pressed reads low.
    public var activeLow: Bool

    public init(role: InputRole, chipLabel: String, line: GPIOLineSelector, bias: LineBias = .pullUp, activeLow: Bool = true) {
        self.role = role
        self.chipLabel = chipLabel
        self.line = line
        self.bias = bias
        self.activeLow = activeLow
    }
}

public struct OutputLineDefinition: Hashable, Sendable {
    public var indicator: IndicatorChannel
    public var chipLabel: String
    public var line: GPIOLineSelector
    /// True when the LED or buzzer is on while the pin is low (wired to 3.3 V).
    public var activeLow: Bool

    public init(indicator: IndicatorChannel, chipLabel: String, line: GPIOLineSelector, activeLow: Bool = false) {
        self.indicator = indicator
        self.chipLabel = chipLabel
        self.line = line
        self.activeLow = activeLow
    }
}

public enum DisplayController: String, Hashable, Sendable {
    case ssd1306
    case sh1106
}

/// How the I2C bus sends display bytes.
public enum I2CTransferMode: String, Hashable, Sendable {
    /// Plain I2C (I2C_RDWR) when the adapter supports it, otherwise SMBus block writes.
    case automatic = "auto"
    case i2c
    /// SMBus I2C-block writes of at most 32 data bytes (i2c-stub, SMBus-only adapters).
    case smbus
}

public struct DisplayDefinition: Hashable, Sendable {
    public var controller: DisplayController
    public var width: Int
    public var height: Int
    /// N in /dev/i2c-N.
    public var i2cBus: Int
    public var address: I2CAddress
    public var transferMode: I2CTransferMode

    public init(controller: DisplayController, width: Int = 128, height: Int = 64, i2cBus: Int = 1,
                address: I2CAddress, transferMode: I2CTransferMode = .automatic) {
        self.controller = controller
        self.width = width
        self.height = height
        self.i2cBus = i2cBus
        self.address = address
        self.transferMode = transferMode
    }
}

public struct AudioDefinition: Hashable, Sendable {
    /// The ALSA PCM name: "default", "hw:CARD=Headphones", "plughw:1,0" ...
    public var device: String
    public var sampleRate: Int
    public var channels: Int
    public var periodFrames: Int
    public var periodCount: Int

    public init(device: String = "default", sampleRate: Int = 48000, channels: Int = 2,
                periodFrames: Int = 128, periodCount: Int = 3) {
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
        self.periodFrames = periodFrames
        self.periodCount = periodCount
    }
}

/// How the tempo wheel's encoder counts: quadrature steps per detent (1, 2 or 4, from its
/// datasheet) and whether clockwise is reversed by the wiring.
public struct EncoderDefinition: Hashable, Sendable {
    public var stepsPerDetent: Int
    public var reverse: Bool

    public init(stepsPerDetent: Int = 4, reverse: Bool = false) {
        self.stepsPerDetent = stepsPerDetent
        self.reverse = reverse
    }
}

/// Everything the service needs to know about one board's wiring, read from boards/*.toml.
public struct BoardDefinition: Hashable, Sendable {
    /// Short identifier, the file's name without extension ("pi4b").
    public var identifier: String
    /// Human name ("Raspberry Pi 4 Model B").
    public var model: String
    public var inputs: [InputLineDefinition]
    public var outputs: [OutputLineDefinition]
    public var display: DisplayDefinition?
    public var audio: AudioDefinition
    public var encoder: EncoderDefinition

    public init(identifier: String, model: String, inputs: [InputLineDefinition], outputs: [OutputLineDefinition],
                display: DisplayDefinition?, audio: AudioDefinition, encoder: EncoderDefinition = EncoderDefinition()) {
        self.encoder = encoder
        self.identifier = identifier
        self.model = model
        self.inputs = inputs
        self.outputs = outputs
        self.display = display
        self.audio = audio
    }

    public func input(_ role: InputRole) -> InputLineDefinition? { inputs.first { $0.role == role } }
    public func output(_ indicator: IndicatorChannel) -> OutputLineDefinition? { outputs.first { $0.indicator == indicator } }
}

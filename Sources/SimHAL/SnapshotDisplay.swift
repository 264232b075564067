// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// Draws a frame with Unicode half blocks, two pixel rows per text line, for `tactus simulate`.
public enum TerminalPicture {
    /// How the simulator draws the screen in a terminal of a given size.
    public enum Layout: Sendable, Equatable {
        /// Half blocks: one column per pixel, two pixel rows per line (130 x 37 with the frame
        /// and the three lines under it).
        case halfBlocks
        /// Braille: 2 x 4 pixels per character (66 x 21): fits an 80 x 24 terminal.
        case braille
        /// Too small for either: the message names the size needed.
        case tooSmall(String)
    }

    /// Lines under the frame: LEDs and status, the sound note, the keys.
    public static let statusLines = 3

    /// The layout for a `columns` x `rows` terminal and a `width` x `height` screen.
    public static func layout(columns: Int, rows: Int, width: Int = 128, height: Int = 64) -> Layout {
        let full = (width + 2, height / 2 + 2 + statusLines)
        let compact = ((width + 1) / 2 + 2, (height + 3) / 4 + 2 + statusLines)
        if columns >= full.0 && rows >= full.1 { return .halfBlocks }
        if columns >= compact.0 && rows >= compact.1 { return .braille }
        return .tooSmall("The simulator needs a terminal of at least \(compact.0)x\(compact.1) characters "
            + "(\(full.0)x\(full.1) for the screen at full size); this one is \(columns)x\(rows). Enlarge it, or press q.")
    }

    /// The frame in Braille patterns, 2 x 4 pixels per character (U+2800 + one bit per dot).
    public static func braille(_ frame: Bitmap) -> [String] {
        // Dot bits: column 0 rows 0-3 = 1, 2, 4, 64; column 1 rows 0-3 = 8, 16, 32, 128.
        let bits: [[UInt32]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]
        return stride(from: 0, to: frame.height, by: 4).map { y in
            var line = ""
            for x in stride(from: 0, to: frame.width, by: 2) {
                var code: UInt32 = 0
                for dx in 0..<2 where x + dx < frame.width {
                    for dy in 0..<4 where y + dy < frame.height && frame[x + dx, y + dy] { code |= bits[dx][dy] }
                }
                line.unicodeScalars.append(Unicode.Scalar(0x2800 + code)!)
            }
            return line
        }
    }

    /// The dimmed screen as the panel shows it, but readable in a terminal: the panel lowers
    /// its contrast and lights only half of the content's pixels, which a terminal cannot
    /// dim; here each lit pixel also lights its right-hand neighbour, so the half-lit digits
    /// read solid again (the caller draws them faint).
    public static func undithered(_ frame: Bitmap) -> Bitmap {
        var out = frame
        for y in 0..<frame.height {
            for x in 1..<frame.width where frame[x - 1, y] { out[x, y] = true }
        }
        return out
    }

    public static func render(_ frame: Bitmap) -> [String] {
        stride(from: 0, to: frame.height, by: 2).map { y in
            String((0..<frame.width).map { x -> Character in
                switch (frame[x, y], frame[x, y + 1]) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            })
        }
    }
}

/// A display that only remembers what it was asked to show: for screen tests and snapshots.
public final class SnapshotDisplay: MonochromeDisplay {
    public let width: Int
    public let height: Int
    public private(set) var frames: [Bitmap] = []
    public private(set) var contrast: UInt8 = 0xCF
    public private(set) var sleeping = false
    /// How many of the latest frames are kept (a long simulation keeps only the last one).
    public let keeping: Int

    public init(width: Int = 128, height: Int = 64, keeping: Int = .max) {
        self.width = width
        self.height = height
        self.keeping = max(keeping, 1)
    }

    public var lastFrame: Bitmap? { frames.last }

    public func initialize() throws(HALError) { frames.append(blankFrame()) }

    public func show(_ frame: Bitmap) throws(HALError) {
        guard frame.width == width, frame.height == height else {
            throw HALError(.invalidArgument, "frame is \(frame.width)x\(frame.height) but the display is \(width)x\(height)")
        }
        if frames.count >= keeping { frames.removeFirst(frames.count - keeping + 1) }
        frames.append(frame)
    }

    public func setContrast(_ level: UInt8) throws(HALError) { contrast = level }
    public func setSleeping(_ sleeping: Bool) throws(HALError) { self.sleeping = sleeping }
}

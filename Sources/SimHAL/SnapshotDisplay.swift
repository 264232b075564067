import HAL

/// Plain-text PBM (P1) for frames: diffable golden images for screen tests.
public enum PBM {
    /// "P1", the size, then one text row of 0/1 per pixel row (1 = lit).
    public static func encode(_ frame: MonochromeFrame) -> String {
        var text = "P1\n\(frame.width) \(frame.height)\n"
        for y in 0..<frame.height {
            text += (0..<frame.width).map { frame[$0, y] ? "1" : "0" }.joined()
            text += "\n"
        }
        return text
    }

    /// Reads P1 text (comments and any whitespace allowed); nil if it is not a valid P1 image.
    public static func decode(_ text: String) -> MonochromeFrame? {
        var tokens: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            tokens += content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        }
        guard tokens.count >= 3, tokens[0] == "P1", let width = Int(tokens[1]), let height = Int(tokens[2]), width > 0, height > 0 else { return nil }
        // Pixels may be written with or without separators.
        let pixels = tokens.dropFirst(3).joined()
        guard pixels.count == width * height, pixels.allSatisfy({ $0 == "0" || $0 == "1" }) else { return nil }
        var frame = MonochromeFrame(width: width, height: height)
        for (index, character) in pixels.enumerated() where character == "1" {
            frame[index % width, index / width] = true
        }
        return frame
    }
}

/// Draws a frame with Unicode half blocks, two pixel rows per text line, for `tactus simulate`.
public enum TerminalPicture {
    public static func render(_ frame: MonochromeFrame) -> [String] {
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
    public private(set) var frames: [MonochromeFrame] = []
    public private(set) var contrast: UInt8 = 0xCF
    public private(set) var sleeping = false

    public init(width: Int = 128, height: Int = 64) {
        self.width = width
        self.height = height
    }

    public var lastFrame: MonochromeFrame? { frames.last }

    public func initialize() throws(HALError) { frames.append(blankFrame()) }

    public func show(_ frame: MonochromeFrame) throws(HALError) {
        guard frame.width == width, frame.height == height else {
            throw HALError(.invalidArgument, "frame is \(frame.width)x\(frame.height) but the display is \(width)x\(height)")
        }
        frames.append(frame)
    }

    public func setContrast(_ level: UInt8) throws(HALError) { contrast = level }
    public func setSleeping(_ sleeping: Bool) throws(HALError) { self.sleeping = sleeping }
}

// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// Draws a frame with Unicode half blocks, two pixel rows per text line, for `tactus simulate`.
public enum TerminalPicture {
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

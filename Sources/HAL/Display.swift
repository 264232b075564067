// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase

// A frame is TactusBase's `Bitmap`: 1-bit pixels in the SSD1306-class page layout, so what
// the screen renderer draws goes to a driver as it is.

/// How a display driver talks to its controller: command bytes or display-RAM data.
/// Over I2C these are the control bytes 0x00 and 0x40; over SPI, the D/C line.
public protocol DisplayTransport: AnyObject {
    /// Sends commands; each inner array is one command with its parameters and is never split
    /// across bus transfers.
    func sendCommands(_ commands: [[UInt8]]) throws(HALError)
    /// Sends bytes to display RAM at the controller's current address.
    func sendData(_ bytes: ArraySlice<UInt8>) throws(HALError)
}

/// A monochrome panel: the one primitive is showing a whole frame; drivers send only what
/// changed since the previous one.
public protocol MonochromeDisplay: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Brings the controller into a known state (all of RAM cleared, display on).
    func initialize() throws(HALError)
    func show(_ frame: Bitmap) throws(HALError)
    /// 0...255; the screen dims by lowering it.
    func setContrast(_ level: UInt8) throws(HALError)
    /// Sleep turns the panel off (no burn-in, a few µA) and keeps RAM.
    func setSleeping(_ sleeping: Bool) throws(HALError)
}

extension MonochromeDisplay {
    public func blankFrame() -> Bitmap { Bitmap(width: width, height: height) }
}

/// A 1-bit frame in the layout of SSD1306-class controllers: the screen is cut into pages of
/// 8 rows; byte `page * width + x` holds column x of that page, bit 0 at the top.
///
/// Keeping the controller's own layout makes "which bytes changed" a plain byte compare.
public struct MonochromeFrame: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var bytes: [UInt8]

    /// A blank frame. The height is rounded up to whole pages in storage.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "a frame has at least one pixel")
        self.width = width
        self.height = height
        self.bytes = [UInt8](repeating: 0, count: width * ((height + 7) / 8))
    }

    /// A frame from page-layout bytes, or nil if the count does not match the size.
    public init?(width: Int, height: Int, pageBytes: [UInt8]) {
        guard width > 0, height > 0, pageBytes.count == width * ((height + 7) / 8) else { return nil }
        self.width = width
        self.height = height
        self.bytes = pageBytes
    }

    public var pageCount: Int { (height + 7) / 8 }

    /// The 8-pixel column bytes of one page.
    public func page(_ page: Int) -> ArraySlice<UInt8> {
        bytes[(page * width)..<((page + 1) * width)]
    }

    /// Pixels outside the frame read as off and ignore writes, so drawing code may clip freely.
    public subscript(x: Int, y: Int) -> Bool {
        get {
            guard x >= 0, x < width, y >= 0, y < height else { return false }
            return bytes[(y / 8) * width + x] & (1 << UInt8(y % 8)) != 0
        }
        set {
            guard x >= 0, x < width, y >= 0, y < height else { return }
            let mask: UInt8 = 1 << UInt8(y % 8)
            if newValue { bytes[(y / 8) * width + x] |= mask } else { bytes[(y / 8) * width + x] &= ~mask }
        }
    }

    /// Sets one 8-row column byte of a page directly.
    public mutating func setByte(page: Int, column: Int, _ value: UInt8) {
        bytes[page * width + column] = value
    }
}

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
    func show(_ frame: MonochromeFrame) throws(HALError)
    /// 0...255; the screen dims by lowering it.
    func setContrast(_ level: UInt8) throws(HALError)
    /// Sleep turns the panel off (no burn-in, a few µA) and keeps RAM.
    func setSleeping(_ sleeping: Bool) throws(HALError)
}

extension MonochromeDisplay {
    public func blankFrame() -> MonochromeFrame { MonochromeFrame(width: width, height: height) }
}

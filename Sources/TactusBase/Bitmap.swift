// SPDX-License-Identifier: GPL-3.0-or-later
/// A point on the screen; y grows downwards.
public struct Point: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public init(_ x: Int, _ y: Int) { self.x = x; self.y = y }
}

/// An axis-aligned rectangle; `x + width` and `y + height` are exclusive.
public struct Rect: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public func contains(_ px: Int, _ py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        return Rect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    public func insetBy(_ d: Int) -> Rect { Rect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d) }
}

/// How a drawing operation combines with what is already there.
public enum DrawMode: Sendable, Hashable {
    case set
    case clear
    case invert
}

/// A 1-bit image stored the way SSD1306-class controllers store it: pages of 8 rows,
/// byte `page * width + x` holds column x of that page with bit 0 at the top. Keeping the
/// controller's layout means a frame goes to the display driver without conversion and
/// "which bytes changed" stays a plain byte compare.
///
/// Every primitive clips to the bitmap and to `clip`, so drawing code never checks bounds.
/// The one 1-bit frame type of the project: the screen renderer draws it and the display
/// drivers send it (HAL calls it `Bitmap`). Stored in the SSD1306 page layout: byte
/// `page * width + x` holds column x of rows page*8 ... page*8+7, bit 0 at the top, so "which
/// bytes changed" is a plain byte compare.
public struct Bitmap: Sendable, Hashable {
    public static let screenWidth = 128
    public static let screenHeight = 64

    public let width: Int
    public let height: Int
    public private(set) var pageBytes: [UInt8]
    /// Drawing outside this rectangle is ignored.
    public var clip: Rect

    public init(width: Int = Bitmap.screenWidth, height: Int = Bitmap.screenHeight) {
        precondition(width > 0 && height > 0, "a bitmap has at least one pixel")
        self.width = width
        self.height = height
        self.pageBytes = [UInt8](repeating: 0, count: width * ((height + 7) / 8))
        self.clip = Rect(x: 0, y: 0, width: width, height: height)
    }

    /// A bitmap from rows of characters: `#` (or `X`, `1`) is on, anything else off.
    public init(rows: [String]) {
        let width = rows.map(\.count).max() ?? 1
        self.init(width: max(width, 1), height: max(rows.count, 1))
        for (y, row) in rows.enumerated() {
            for (x, character) in row.enumerated() where character == "#" || character == "X" || character == "1" {
                self[x, y] = true
            }
        }
    }

    /// A bitmap from page-layout bytes, or nil if the count does not match the size.
    public init?(width: Int, height: Int, pageBytes: [UInt8]) {
        guard width > 0, height > 0, pageBytes.count == width * ((height + 7) / 8) else { return nil }
        self.init(width: width, height: height)
        self.pageBytes = pageBytes
    }

    /// Equal pixels are equal bitmaps; the clip is drawing state, not content.
    public static func == (a: Bitmap, b: Bitmap) -> Bool {
        a.width == b.width && a.height == b.height && a.pageBytes == b.pageBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(pageBytes)
    }

    /// The 8-pixel column bytes of one page.
    public func page(_ page: Int) -> ArraySlice<UInt8> {
        pageBytes[(page * width)..<((page + 1) * width)]
    }

    /// Sets one 8-row column byte of a page directly (as a controller's RAM write does).
    public mutating func setByte(page: Int, column: Int, _ value: UInt8) {
        pageBytes[page * width + column] = value
    }

    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }
    public var pageCount: Int { (height + 7) / 8 }

    /// Pixels outside the bitmap read as off; writes outside the clip are dropped.
    public subscript(x: Int, y: Int) -> Bool {
        get {
            guard x >= 0, x < width, y >= 0, y < height else { return false }
            return pageBytes[(y >> 3) * width + x] & (1 << UInt8(y & 7)) != 0
        }
        set { plot(x, y, newValue ? .set : .clear) }
    }

    public mutating func plot(_ x: Int, _ y: Int, _ mode: DrawMode = .set) {
        guard x >= 0, x < width, y >= 0, y < height, clip.contains(x, y) else { return }
        let index = (y >> 3) * width + x
        let mask: UInt8 = 1 << UInt8(y & 7)
        switch mode {
        case .set: pageBytes[index] |= mask
        case .clear: pageBytes[index] &= ~mask
        case .invert: pageBytes[index] ^= mask
        }
    }

    public var litPixelCount: Int { pageBytes.reduce(0) { $0 + $1.nonzeroBitCount } }

    public mutating func clear() {
        for i in pageBytes.indices { pageBytes[i] = 0 }
    }

    public mutating func fill(_ rect: Rect, _ mode: DrawMode = .set) {
        let r = rect.intersection(clip).intersection(bounds)
        guard !r.isEmpty else { return }
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX { plot(x, y, mode) }
        }
    }

    /// A one-pixel outline just inside `rect`.
    public mutating func strokeRect(_ rect: Rect, _ mode: DrawMode = .set) {
        guard !rect.isEmpty else { return }
        hline(rect.x, rect.maxX - 1, rect.y, mode)
        if rect.height > 1 { hline(rect.x, rect.maxX - 1, rect.maxY - 1, mode) }
        if rect.height > 2 {
            vline(rect.x, rect.y + 1, rect.maxY - 2, mode)
            if rect.width > 1 { vline(rect.maxX - 1, rect.y + 1, rect.maxY - 2, mode) }
        }
    }

    public mutating func hline(_ x0: Int, _ x1: Int, _ y: Int, _ mode: DrawMode = .set) {
        for x in min(x0, x1)...max(x0, x1) { plot(x, y, mode) }
    }

    public mutating func vline(_ x: Int, _ y0: Int, _ y1: Int, _ mode: DrawMode = .set) {
        for y in min(y0, y1)...max(y0, y1) { plot(x, y, mode) }
    }

    /// Bresenham's line, both ends included; each pixel is visited once, so `.invert` works.
    public mutating func line(_ a: Point, _ b: Point, _ mode: DrawMode = .set) {
        var x = a.x, y = a.y
        let dx = abs(b.x - a.x), dy = -abs(b.y - a.y)
        let sx = a.x < b.x ? 1 : -1, sy = a.y < b.y ? 1 : -1
        var error = dx + dy
        while true {
            plot(x, y, mode)
            if x == b.x && y == b.y { return }
            let e2 = 2 * error
            if e2 >= dy { error += dy; x += sx }
            if e2 <= dx { error += dx; y += sy }
        }
    }

    /// A line `thickness` pixels wide, drawn as parallel Bresenham lines offset across its direction.
    public mutating func thickLine(_ a: Point, _ b: Point, thickness: Int) {
        guard thickness > 1 else { line(a, b); return }
        let steep = abs(b.y - a.y) > abs(b.x - a.x)
        let first = -(thickness - 1) / 2
        for offset in first..<(first + thickness) {
            if steep {
                line(Point(a.x + offset, a.y), Point(b.x + offset, b.y))
            } else {
                line(Point(a.x, a.y + offset), Point(b.x, b.y + offset))
            }
        }
    }

    /// The pixels whose centres lie within `outer` of the centre and beyond `inner`
    /// (squared distances compared in integers, so the ring is symmetric and exact).
    /// `inner < 0` gives a filled disc.
    public mutating func annulus(center: Point, outer: Int, inner: Int, _ mode: DrawMode = .set) {
        guard outer >= 0 else { return }
        let outer2 = outer * outer + outer  // r + 1/2 squared, minus 1/4: the usual midpoint bound
        let inner2 = inner < 0 ? -1 : inner * inner + inner
        for dy in -outer...outer {
            for dx in -outer...outer {
                let d2 = dx * dx + dy * dy
                if d2 <= outer2 && d2 > inner2 { plot(center.x + dx, center.y + dy, mode) }
            }
        }
    }

    /// A one-pixel circle of radius `radius`.
    public mutating func circle(center: Point, radius: Int, _ mode: DrawMode = .set) {
        annulus(center: center, outer: radius, inner: radius - 1, mode)
    }

    public mutating func disc(center: Point, radius: Int, _ mode: DrawMode = .set) {
        annulus(center: center, outer: radius, inner: -1, mode)
    }

    /// Copies the lit pixels of `image` with its top-left corner at `origin`; unlit pixels
    /// leave the destination as it is, so sprites overlay without a mask.
    public mutating func blit(_ image: Bitmap, at origin: Point, _ mode: DrawMode = .set) {
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y] {
                plot(origin.x + x, origin.y + y, mode)
            }
        }
    }

    /// Turns off every other pixel (checkerboard) inside `rect`: half brightness on a 1-bit panel.
    public mutating func dither(_ rect: Rect) {
        let r = rect.intersection(bounds)
        guard !r.isEmpty else { return }
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX where (x + y) & 1 == 1 { plot(x, y, .clear) }
        }
    }

    /// The rows as text: `#` on, `.` off.
    public var rowStrings: [String] {
        (0..<height).map { y in String((0..<width).map { self[$0, y] ? "#" : "." }) }
    }
}

extension Bitmap {
    /// Each pixel becomes a `factor` x `factor` block: icons drawn small, shown big.
    public func scaled(by factor: Int) -> Bitmap {
        var out = Bitmap(width: width * factor, height: height * factor)
        for y in 0..<height {
            for x in 0..<width where self[x, y] {
                out.fill(Rect(x: x * factor, y: y * factor, width: factor, height: factor))
            }
        }
        return out
    }

    /// A filled triangle pointing right (`direction` 1) or left (-1), `size` pixels tall at its base.
    public mutating func arrow(tip: Point, direction: Int, size: Int, _ mode: DrawMode = .set) {
        for i in 0..<size {
            vline(tip.x - direction * i, tip.y - i, tip.y + i, mode)
        }
    }

    /// A filled triangle pointing up, tip at `tip`.
    public mutating func caretUp(tip: Point, size: Int, _ mode: DrawMode = .set) {
        for i in 0..<size { hline(tip.x - i, tip.x + i, tip.y + i, mode) }
    }

    /// Every other pixel of a horizontal line: a quiet separator.
    public mutating func dottedHLine(_ x0: Int, _ x1: Int, _ y: Int) {
        for x in stride(from: min(x0, x1), through: max(x0, x1), by: 2) { plot(x, y) }
    }

    public mutating func dottedVLine(_ x: Int, _ y0: Int, _ y1: Int) {
        for y in stride(from: min(y0, y1), through: max(y0, y1), by: 2) { plot(x, y) }
    }
}

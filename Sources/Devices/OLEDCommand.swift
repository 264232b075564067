// SPDX-License-Identifier: GPL-3.0-or-later
/// The SSD1306 and SH1106 commands this project sends, one case per opcode, each with the
/// datasheet section that defines it. "SSD1306 §10.1.x" is Solomon Systech's SSD1306 Rev 1.1,
/// section 10.1 "Fundamental/Scrolling/Addressing/Hardware Configuration Command"; "SH1106 #n"
/// is Sino Wealth's SH1106 V2.3, "Commands" item n.
public enum OLEDCommand: Equatable, Sendable {
    /// Lower nibble of the column start address, page addressing. SSD1306 §10.1.1, SH1106 #1.
    case setLowerColumn(UInt8)
    /// Upper nibble of the column start address, page addressing. SSD1306 §10.1.2, SH1106 #2.
    case setHigherColumn(UInt8)
    /// 0 horizontal, 1 vertical, 2 page addressing. SSD1306 only, §10.1.3 (SH1106 has page mode only).
    case setMemoryAddressingMode(UInt8)
    /// RAM row shown on the first COM line, 0...63. SSD1306 §10.1.6, SH1106 #4.
    case setDisplayStartLine(UInt8)
    /// 0...255. SSD1306 §10.1.7, SH1106 #5.
    case setContrast(UInt8)
    /// true: column 127 (SH1106: 131) drives SEG0, i.e. mirrored left-right. SSD1306 §10.1.8, SH1106 #6.
    case setSegmentRemap(Bool)
    /// true lights every pixel regardless of RAM (a test); false shows RAM. SSD1306 §10.1.9, SH1106 #7.
    case entireDisplayOn(Bool)
    /// true swaps lit and dark pixels. SSD1306 §10.1.10, SH1106 #8.
    case setInverse(Bool)
    /// Number of COM lines used, minus one (63 for 64 rows). SSD1306 §10.1.11, SH1106 #9.
    case setMultiplexRatio(UInt8)
    /// Panel on (true) or sleep (false); RAM is kept. SSD1306 §10.1.12, SH1106 #11.
    case setDisplayOn(Bool)
    /// Page 0...7 for the next data bytes, page addressing. SSD1306 §10.1.13, SH1106 #12.
    case setPageStart(UInt8)
    /// true scans COM[N-1] to COM0, i.e. flipped top-bottom. SSD1306 §10.1.14, SH1106 #13.
    case setCOMScanRemapped(Bool)
    /// Vertical shift by COM, 0...63. SSD1306 §10.1.15, SH1106 #14.
    case setDisplayOffset(UInt8)
    /// Clock divide ratio (low nibble) and oscillator frequency (high nibble). SSD1306 §10.1.16, SH1106 #15.
    case setClockDivide(UInt8)
    /// Pre-charge (low nibble) and discharge (high nibble) periods in DCLKs. SSD1306 §10.1.17, SH1106 #16.
    case setPrechargePeriod(UInt8)
    /// COM pin layout: 0x12 alternative (64-row panels), 0x02 sequential (128x32). SSD1306 §10.1.18, SH1106 #17.
    case setCOMPinsConfiguration(UInt8)
    /// VCOMH deselect level. SSD1306 §10.1.19, SH1106 #18.
    case setVCOMHDeselectLevel(UInt8)
    /// SSD1306 internal charge pump on/off: SSD1306 Rev 1.1 Appendix "Charge Pump Setting" (8Dh).
    case setChargePump(Bool)
    /// SH1106 DC-DC converter on/off (ADh, 8Bh/8Ah). SH1106 #10.
    case setDCDCConverter(Bool)
    /// SH1106 charge pump output voltage, 0...3 = 6.4, 7.4, 8.0, 9.0 V. SH1106 #3.
    case setPumpVoltage(UInt8)
    /// No operation. SSD1306 §10.1.20, SH1106 #21.
    case noOperation

    /// The opcode followed by its parameters, as sent after a 0x00 control byte.
    public var bytes: [UInt8] {
        switch self {
        case .setLowerColumn(let nibble): [0x00 | (nibble & 0x0F)]
        case .setHigherColumn(let nibble): [0x10 | (nibble & 0x0F)]
        case .setMemoryAddressingMode(let mode): [0x20, mode & 0x03]
        case .setDisplayStartLine(let line): [0x40 | (line & 0x3F)]
        case .setContrast(let level): [0x81, level]
        case .setSegmentRemap(let remapped): [remapped ? 0xA1 : 0xA0]
        case .entireDisplayOn(let on): [on ? 0xA5 : 0xA4]
        case .setInverse(let inverse): [inverse ? 0xA7 : 0xA6]
        case .setMultiplexRatio(let ratio): [0xA8, ratio & 0x3F]
        case .setDisplayOn(let on): [on ? 0xAF : 0xAE]
        case .setPageStart(let page): [0xB0 | (page & 0x07)]
        case .setCOMScanRemapped(let remapped): [remapped ? 0xC8 : 0xC0]
        case .setDisplayOffset(let offset): [0xD3, offset & 0x3F]
        case .setClockDivide(let value): [0xD5, value]
        case .setPrechargePeriod(let value): [0xD9, value]
        case .setCOMPinsConfiguration(let value): [0xDA, value]
        case .setVCOMHDeselectLevel(let value): [0xDB, value]
        case .setChargePump(let on): [0x8D, on ? 0x14 : 0x10]
        case .setDCDCConverter(let on): [0xAD, on ? 0x8B : 0x8A]
        case .setPumpVoltage(let level): [0x30 | (level & 0x03)]
        case .noOperation: [0xE3]
        }
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TactusScreen
import TactusBase

/// Golden images: plain-text PBM files under Tests/ScreenTests/Snapshots. They are written
/// only when TACTUS_UPDATE_SNAPSHOTS=1; otherwise a missing or different file fails the
/// test with a picture of the difference. With TACTUS_SCREENS_PNG=<folder> every snapshot
/// is also written there as a PNG for people to look at.
enum Snapshot {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
    static var updating: Bool { ProcessInfo.processInfo.environment["TACTUS_UPDATE_SNAPSHOTS"] == "1" }

    static func assertMatches(_ bitmap: Bitmap, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = folder.appendingPathComponent(name + ".pbm")
        if let pngFolder = ProcessInfo.processInfo.environment["TACTUS_SCREENS_PNG"], !pngFolder.isEmpty {
            let pngURL = URL(fileURLWithPath: pngFolder).appendingPathComponent(name + ".png")
            try? FileManager.default.createDirectory(at: pngURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? Data(PNG.encode(bitmap)).write(to: pngURL)
        }
        if updating {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try PBM.encode(bitmap).write(to: url, atomically: true, encoding: .utf8)
            } catch {
                Issue.record("could not write \(url.path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("no golden image \(name).pbm; run with TACTUS_UPDATE_SNAPSHOTS=1 to create it, then look at it", sourceLocation: sourceLocation)
            return
        }
        guard let golden = PBM.decode(text) else {
            Issue.record("\(name).pbm is not a valid P1 image", sourceLocation: sourceLocation)
            return
        }
        if let difference = describeDifference(golden: golden, actual: bitmap) {
            Issue.record("\(name) differs from its golden image (TACTUS_UPDATE_SNAPSHOTS=1 regenerates it):\n\(difference)",
                         sourceLocation: sourceLocation)
        }
    }

    /// nil when equal; otherwise the changed rows drawn with `+` (only in the new frame),
    /// `-` (only in the golden), `#` (both) and `.` (neither), cropped to the changed area.
    static func describeDifference(golden: Bitmap, actual: Bitmap) -> String? {
        guard golden.width == actual.width, golden.height == actual.height else {
            return "size \(actual.width)x\(actual.height), golden \(golden.width)x\(golden.height)"
        }
        var minX = Int.max, maxX = -1, minY = Int.max, maxY = -1, count = 0
        for y in 0..<golden.height {
            for x in 0..<golden.width where golden[x, y] != actual[x, y] {
                count += 1
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        guard count > 0 else { return nil }
        var lines = ["\(count) pixel(s) differ in x \(minX)...\(maxX), y \(minY)...\(maxY)"]
        let left = max(0, minX - 2), right = min(golden.width - 1, maxX + 2)
        for y in max(0, minY - 1)...min(golden.height - 1, maxY + 1) {
            let row = (left...right).map { x -> Character in
                switch (golden[x, y], actual[x, y]) {
                case (true, true): "#"
                case (false, false): "."
                case (false, true): "+"
                case (true, false): "-"
                }
            }
            let label = String(y)
            lines.append(String(repeating: " ", count: max(0, 3 - label.count)) + label + " " + String(row))
        }
        return lines.joined(separator: "\n")
    }
}

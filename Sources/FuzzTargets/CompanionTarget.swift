// SPDX-License-Identifier: GPL-3.0-or-later
import TactusWire
import ClickEngine
import TactusInstrument
import TactusMusic

/// A companion request body (`PATCH /api/state`, `PATCH /api/preferences`, the control
/// socket's JSON lines): parsed, and read as both patches. A refusal is one line naming a
/// field; accepted settings play; the JSON the box writes back parses to what it wrote.
extension FuzzTargets {
    static func companion(_ bytes: [UInt8], _ budget: Budget) {
        let body: JSONValue
        do { body = try JSONValue.parse(text(bytes)) } catch {
            expectOneLine("\(error)")
            return
        }
        do {
            let again = try JSONValue.parse(body.json)
            if again != body { fail("JSON does not read back as written: \(body.json)") }
        } catch { fail("the box's own JSON is refused: \(body.json)") }
        do throws(RemotePatch.Problem) {
            let (settings, _) = try RemotePatch.apply(body, to: MetronomeSettings(), soundNames: BuiltInSounds.names)
            render(settings, seconds: 1)
        } catch {
            expectNamed(error)
        }
        do {
            let preferences = try RemotePatch.preferences(body, to: Preferences())
            _ = try JSONValue.parse(RemotePatch.json(preferences).text)
        } catch let error as RemotePatch.Problem {
            expectNamed(error)
        } catch { fail("the preferences the box writes are refused: \(error)") }
    }

    /// One line that starts with the field it is about (`"" = 1` for an empty key).
    static func expectNamed(_ problem: RemotePatch.Problem) {
        expectOneLine(problem.description)
        if problem.description.hasPrefix(" ") { fail("a refusal names no field: \(problem)") }
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Testing
@testable import TOMLReader

@Suite struct TOMLParserTests {
    func parse(_ text: String) throws(TOMLError) -> TOMLTable { try TOML.parse(text, file: "test.toml") }

    func parseError(_ text: String) -> TOMLError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func scalarsAndLines() throws {
        let t = try parse("""
            # a comment
            name = "Tactus"   # trailing comment
            count = 42
            negative = -17
            big = 1_000_000
            hex = 0xDEAD_beef
            octal = 0o755
            binary = 0b1101
            pi = 3.1415
            exp = 5e+22
            small = -2E-2
            frac_exp = 6.626e-34
            yes = true
            no = false
            infinite = -inf
            """)
        #expect(t["name"]?.string == "Tactus")
        #expect(t["name"]?.line == 2)
        #expect(t["count"]?.integer == 42)
        #expect(t["count"]?.line == 3)
        #expect(t["negative"]?.integer == -17)
        #expect(t["big"]?.integer == 1_000_000)
        #expect(t["hex"]?.integer == 0xDEADBEEF)
        #expect(t["octal"]?.integer == 0o755)
        #expect(t["binary"]?.integer == 13)
        #expect(t["pi"]?.content == .float(3.1415))
        #expect(t["exp"]?.content == .float(5e22))
        #expect(t["small"]?.content == .float(-0.02))
        #expect(t["frac_exp"]?.content == .float(6.626e-34))
        #expect(t["yes"]?.bool == true)
        #expect(t["no"]?.bool == false)
        #expect(t["infinite"]?.content == .float(-.infinity))
        #expect(t.keys == ["name", "count", "negative", "big", "hex", "octal", "binary", "pi", "exp", "small",
                           "frac_exp", "yes", "no", "infinite"])
    }

    @Test func strings() throws {
        let t = try parse(#"""
            basic = "tab\there \"q\" back\\slash \u00E9 \U0001F3B5"
            literal = 'C:\path\no escapes'
            multi = """
            line one
            line two"""
            folded = """\
                   The quick \
                   fox."""
            raw = '''
            first\n
            second'''
            quotes = """a "quoted" word"""""
            """#)
        #expect(t["basic"]?.string == "tab\there \"q\" back\\slash é 🎵")
        #expect(t["literal"]?.string == #"C:\path\no escapes"#)
        #expect(t["multi"]?.string == "line one\nline two")
        #expect(t["folded"]?.string == "The quick fox.")
        #expect(t["raw"]?.string == "first\\n\nsecond")
        #expect(t["quotes"]?.string == #"a "quoted" word"""#)
        #expect(t["multi"]?.line == 3)
        #expect(t["folded"]?.line == 6)
    }

    @Test func tablesDottedKeysAndArraysOfTables() throws {
        let t = try parse("""
            top = 1
            [display]
            controller = "sh1106"
            i2c.bus = 1
            i2c."address" = 0x3C

            [encoder.a]
            offset = 17

            [[preset]]
            name = "slow"
            [[preset]]
            name = "fast"
            [preset.extra]
            x = 1
            """)
        #expect(t["top"]?.integer == 1)
        let display = try #require(t["display"]?.table)
        #expect(display.line == 2)
        #expect(display["controller"]?.string == "sh1106")
        #expect(display["i2c"]?.table?["bus"]?.integer == 1)
        #expect(display["i2c"]?.table?["address"]?.integer == 0x3C)
        #expect(display["i2c"]?.table?["address"]?.line == 5)
        #expect(t["encoder"]?.table?["a"]?.table?["offset"]?.integer == 17)
        #expect(t["encoder"]?.table?["a"]?.table?.line == 7)
        let presets = try #require(t["preset"]?.array)
        #expect(presets.count == 2)
        #expect(presets[0].table?["name"]?.string == "slow")
        #expect(presets[1].table?["name"]?.string == "fast")
        #expect(presets[1].table?["extra"]?.table?["x"]?.integer == 1)
        #expect(presets[1].line == 12)
    }

    @Test func arraysAndInlineTables() throws {
        let t = try parse("""
            lines = [ 17, 27,
              22, # comment inside
            ]
            empty = []
            nested = [[1, 2], ["a"]]
            point = { x = 1, y.z = "deep" }
            none = {}
            list = [{ a = 1 }, { a = 2 }]
            """)
        #expect(t["lines"]?.array?.compactMap(\.integer) == [17, 27, 22])
        #expect(t["lines"]?.array?[2].line == 2)
        #expect(t["empty"]?.array?.isEmpty == true)
        #expect(t["nested"]?.array?[1].array?[0].string == "a")
        #expect(t["point"]?.table?["x"]?.integer == 1)
        #expect(t["point"]?.table?["y"]?.table?["z"]?.string == "deep")
        #expect(t["none"]?.table?.isEmpty == true)
        #expect(t["list"]?.array?[1].table?["a"]?.integer == 2)
    }

    @Test func windowsLineEndingsAndByteOrderMark() throws {
        let t = try parse("\u{FEFF}a = 1\r\n[b]\r\nc = \"x\"\r\n")
        #expect(t["a"]?.integer == 1)
        #expect(t["b"]?.table?["c"]?.string == "x")
        #expect(t["b"]?.table?["c"]?.line == 3)
    }

    @Test(arguments: [
        ("a = 1\na = 2", 2, "duplicate key a (first defined at line 1)"),
        ("[t]\nx=1\n[t]", 3, "table [t] is defined twice (first at line 1)"),
        ("a = \"unterminated\nb = 1", 1, "unterminated string"),
        ("a = 01", 1, "invalid number '01'"),
        ("a = 1__0", 1, "invalid number '1__0'"),
        ("a = _1", 1, "invalid number '_1'"),
        ("a = 1.", 1, "invalid number '1.'"),
        ("a = 0x", 1, "invalid number '0x'"),
        ("a = 99999999999999999999", 1, "invalid number"),
        ("a = yes", 1, "strings must be in quotes"),
        ("a = 1979-05-27", 1, "dates and times are not supported"),
        ("a = \"bad \\q escape\"", 1, "invalid escape '\\q'"),
        ("a = [1, 2", 1, "unterminated array"),
        ("a = { x = 1, }", 1, "trailing comma"),
        ("a = { x = 1\n}", 1, "must end with '}' on the same line"),
        ("a = 1 b = 2", 1, "unexpected text after the value"),
        ("a =", 1, "missing value"),
        ("= 1", 1, "expected a key"),
        ("a 1", 1, "expected '=' after the key"),
        ("[a\nb=1", 1, "expected ']'"),
        ("a = 1\na.b = 2", 2, "'a' is already defined at line 1"),
        ("a = [1]\n[[a]]", 2, "not an array of tables"),
        ("x = 1\n[x.y]", 2, "key 'x' already holds a value (line 1)"),
        ("[fruit]\napple.color = 'red'\n[fruit.apple]", 3, "defined twice"),
        ("p = { a = 1 }\n[p]", 2, "defined twice"),
        ("a = \"\u{01}\"", 1, "control character 0x01"),
    ])
    func errorsNameLineAndProblem(text: String, line: Int, message: String) {
        let error = parseError(text)
        #expect(error?.line == line, "\(text)")
        #expect(error?.message.contains(message) == true, "\(String(describing: error)) should contain \(message)")
        #expect(error?.description.hasPrefix("test.toml:\(line)") == true)
    }

    @Test func syntaxErrorsCarryAColumn() {
        let error = parseError("name = 'ok'\ncount = 12x")
        #expect(error?.line == 2)
        #expect(error?.column == 9)
        #expect(error?.description == "test.toml:2:9: invalid number '12x'")
    }
}

@Suite struct TOMLWriterTests {
    @Test func documentRoundTrips() throws {
        var root = TOMLTable()
        root["schema"] = .integer(1)
        root["name"] = .string("quote \" and \\ and\nnewline\t\u{01}")
        root["ratio"] = .float(92.5)
        root["whole"] = .float(5)
        root["flags"] = .array([.boolean(true), .boolean(false)])
        var inner = TOMLTable()
        inner["bpm"] = .integer(120)
        inner["odd key"] = .string("x")
        var point = TOMLTable()
        point["x"] = .integer(-3)
        inner["point"] = .table(point)
        root["current"] = .table(inner)
        var p1 = TOMLTable()
        p1["name"] = .string("a")
        var p2 = TOMLTable()
        p2["name"] = .string("b")
        p2["sub"] = .table(point)
        root["preset"] = .array([.table(p1), .table(p2)])

        let text = root.tomlDocument()
        let back = try TOML.parse(text, file: "written.toml")
        #expect(back == root)
        #expect(text.contains("[current]\n"))
        #expect(text.contains("[current.point]\n"))
        #expect(text.contains("\"odd key\" = \"x\""))
        #expect(text.contains("[[preset]]\n"))
        #expect(text.contains("whole = 5.0\n"))
        #expect(back["whole"]?.content == .float(5))
    }

    @Test func inlineText() {
        var t = TOMLTable()
        t["a"] = .integer(1)
        t["b c"] = .array([.string("x"), .float(-.infinity)])
        #expect(TOMLValue.table(t).tomlText == #"{ a = 1, "b c" = ["x", -inf] }"#)
        #expect(TOMLValue.float(1e-5).tomlText == "1e-05")
    }
}

@Suite struct TOMLSectionTests {
    let text = """
        [display]
        controller = "ssd1307"
        address = 0x3E
        bus = "one"
        contrast = 2.5
        flip = "yes"
        colour = "blue"
        """

    func display() throws -> TOMLSection {
        let root = TOMLSection(try TOML.parse(text, file: "board.toml"), file: "board.toml")
        return try #require(try root.section("display"))
    }

    @Test func choiceErrorNamesEverything() throws {
        let d = try display()
        #expect(throws: TOMLError(file: "board.toml", line: 2, field: "display.controller", value: "\"ssd1307\"",
                                  message: "allowed \"ssd1306\", \"sh1106\"")) {
            try d.string("controller", oneOf: ["ssd1306", "sh1106"])
        }
        do {
            _ = try d.string("controller", oneOf: ["ssd1306", "sh1106"])
        } catch {
            #expect(error.description
                == #"board.toml:2: display.controller = "ssd1307" is invalid: allowed "ssd1306", "sh1106""#)
        }
    }

    @Test func rangeAndTypeErrors() throws {
        let d = try display()
        #expect(throws: TOMLError(file: "board.toml", line: 3, field: "display.address", value: "62",
                                  message: "allowed a whole number from 60 to 61")) {
            try d.integer("address", in: 0x3C...0x3D)
        }
        #expect(throws: TOMLError(file: "board.toml", line: 4, field: "display.bus", value: "\"one\"",
                                  message: "allowed a whole number from 0 to 99")) {
            try d.integer("bus", in: 0...99)
        }
        #expect(throws: TOMLError(file: "board.toml", line: 5, field: "display.contrast", value: "2.5",
                                  message: "allowed a number from 0.0 to 1.0")) {
            try d.number("contrast", in: 0...1)
        }
        #expect(throws: TOMLError(file: "board.toml", line: 6, field: "display.flip", value: "\"yes\"",
                                  message: "allowed true or false")) {
            try d.bool("flip")
        }
        #expect(try d.integer("missing", in: 0...1) == nil)
    }

    @Test func missingAndUnknownKeys() throws {
        let d = try display()
        #expect(throws: TOMLError(file: "board.toml", line: 1, field: "display.rotation",
                                  message: "missing; allowed 0 or 180")) {
            try d.required(try d.integer("rotation", in: 0...180), "rotation", allowed: "allowed 0 or 180")
        }
        #expect(throws: TOMLError(file: "board.toml", line: 7, field: "display.colour",
                                  message: "unknown key; allowed keys here: controller, address, bus, contrast, flip")) {
            try d.rejectUnknownKeys(allowed: ["controller", "address", "bus", "contrast", "flip"])
        }
    }

    @Test func arrayOfTablesSections() throws {
        let root = TOMLSection(try TOML.parse("[[led]]\npin = 5\n[[led]]\npin = 600\n", file: "b.toml"), file: "b.toml")
        let leds = try root.sections("led")
        #expect(leds.count == 2)
        #expect(try leds[0].integer("pin", in: 0...511) == 5)
        #expect(throws: TOMLError(file: "b.toml", line: 4, field: "led[1].pin", value: "600",
                                  message: "allowed a whole number from 0 to 511")) {
            try leds[1].integer("pin", in: 0...511)
        }
    }
}

@Suite struct TOMLRobustnessTests {
    /// Damaged files must give an error, never a crash: cut, flip and insert bytes at random.
    @Test func mangledInputNeverCrashes() {
        let seed = Array("""
            a = "x\\u00e9" # c
            [t.u]
            b = [1, 0x1F, 2.5e3, { c = 'd' }]
            m = \"\"\"
            two \\
              lines\"\"\"
            [[p]]
            q.r = true
            """.utf8)
        let alphabet = Array("[]{}=\"'.,#\\\n \t01xeE+-_abtrufn".utf8)
        var random = SplitMix64(state: 7)
        var parsed = 0
        for _ in 0..<3000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.remove(at: at)
                case 1: bytes[at] = alphabet.randomElement(using: &random)!
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                }
                if bytes.isEmpty { bytes = seed }
            }
            if (try? TOML.parse(String(decoding: bytes, as: UTF8.self), file: "f")) != nil { parsed += 1 }
        }
        // Some mutations keep the file valid, most do not: both paths were exercised.
        #expect(parsed > 0 && parsed < 3000)
    }
}

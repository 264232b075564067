// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusMusic
import TactusTimeline
import TactusInstrument
/// Turns a `ScreenModel` and the sample being heard into a 128x64 frame. Pure: the same
/// model and sample give the same pixels, which the snapshot tests rely on.
public enum ScreenRenderer {
    /// The metronome's half: the pendulum and the pulse ring stay inside it.
    public static let pendulumArea = Rect(x: 67, y: 0, width: 61, height: 64)
    static let leftColumnCenter = 32

    /// One frame. `heardSample` is the engine sample leaving the output now
    /// (`AudioOutputClock.heardSample(atNanoseconds:)`); only the playing page uses it.
    public static func render(_ model: ScreenModel, heardSample: Double = 0) -> Bitmap {
        var bitmap = Bitmap()
        let position = model.grid?.beat(atSample: heardSample)
        switch model.page {
        case .playing, .stopped:
            if model.wheelMode == .tempo {
                drawMain(model, position: position, into: &bitmap)
                // The Link mark: "L" and the number of other peers, top left (free on this page).
                if let peers = model.linkPeers { _ = SmallFont.draw("L\(peers)", at: Point(0, 0), into: &bitmap) }
                // The MIDI sync mark: "M" and =, ~ or ? (locked, locking, lost), and an SPP's bar.beat.
                if let sync = model.midiSync { _ = SmallFont.draw(sync.mark, at: Point(0, 0), into: &bitmap) }
                if position == nil { bitmap.blit(model.wheelMode.icon, at: Point(120, 0)) }
                // Playing, a notice keeps to the left half: the pendulum's half is never covered.
                let width = position == nil ? 128 : ScreenRenderer.pendulumArea.x - 2
                if let notice = model.notice {
                    drawNotice(notice, page: model.noticePage, in: Rect(x: 0, y: 34, width: width, height: 30), into: &bitmap)
                }
            } else {
                drawModePage(model, into: &bitmap)
                if let notice = model.notice {
                    drawNotice(notice, page: model.noticePage, in: Rect(x: 20, y: 42, width: 108, height: 22), into: &bitmap)
                }
            }
        case .menu(let choice):
            drawMenu(choice, into: &bitmap)
            if let notice = model.notice {
                drawNotice(notice, page: model.noticePage, in: Rect(x: 20, y: 42, width: 108, height: 22), into: &bitmap)
            }
        case .tone(let view):
            drawTone(view, into: &bitmap)
            if let notice = model.notice {
                drawNotice(notice, page: model.noticePage, in: Rect(x: 20, y: 42, width: 108, height: 22), into: &bitmap)
            }
        case .dimmed:
            drawDimmed(model, into: &bitmap)
            return bitmap
        }
        // Away from the main screen the beat stays visible: a small pendulum along the top
        // (in the menu, left of the page's title).
        if let position, !(model.wheelMode == .tempo && !isMenu(model.page)) {
            var strip = beatStrip
            if case .menu(let choice) = model.page, !choice.title.isEmpty {
                let titleLeft = 123 - SmallFont.width(of: SmallFont.fitting(choice.title, maxWidth: 90))
                strip = Rect(x: 3, y: 0, width: max(titleLeft - 9, 12), height: beatStrip.height)
            }
            if case .tone = model.page {
                // Between the tone's ON/OFF and its title.
                strip = Rect(x: 24, y: 0, width: 123 - SmallFont.width(of: "Tone") - 9 - 24, height: beatStrip.height)
            }
            drawBeatStrip(position: position, in: strip, into: &bitmap)
        }
        return bitmap
    }

    static func isMenu(_ page: ScreenModel.Page) -> Bool {
        if case .menu = page { return true }
        if case .tone = page { return true }
        return false
    }

    /// The strip along the top edge that keeps the beat in view on mode pages and the menu:
    /// a bob that swings end to end once per beat (the main pendulum's motion) and flashes
    /// a bar on the beat, taller on accents.
    public static let beatStrip = Rect(x: 24, y: 0, width: 88, height: 4)

    static func drawBeatStrip(position: GridBeat, in strip: Rect, into bitmap: inout Bitmap) {
        bitmap.fill(Rect(x: strip.x - 1, y: 0, width: strip.width + 2, height: strip.height), .clear)
        bitmap.dottedHLine(strip.x, strip.maxX - 1, 1)
        let swing = Pendulum.swing(beatIndex: position.beatIndex, fraction: position.fraction)
        let half = Double(strip.width - 4) / 2
        let x = strip.x + 2 + ScreenMath.pixel(half + half * swing)
        bitmap.fill(Rect(x: x - 2, y: 0, width: 4, height: 3))
        // On the beat (the first tenth of it), the end it reached lights up.
        if position.fraction < 0.1, position.level != .muted {
            let endX = position.beatIndex & 1 == 0 ? strip.x - 1 : strip.maxX
            bitmap.vline(endX, 0, position.level == .accent ? 3 : 1)
        }
    }

    /// A notice in a box: problems inverted, news outlined; wrapped to the box's lines. Never
    /// a word lost: a notice longer than `area` grows upwards to the top of the screen within
    /// the same column (while playing, the left half), and one longer than that shows its
    /// lines a page at a time (`page`, every `Notice.pageDuration`), a mark on the right
    /// edge of the box saying which page is up.
    static func drawNotice(_ notice: Notice, page: Int = 0, in area: Rect, into bitmap: inout Bitmap) {
        let all = wrap(notice.text, width: area.width - 4)
        let perPage = max(1, (area.maxY - 2) / 8)
        let pages = (all.count + perPage - 1) / perPage
        let first = pages > 1 ? (page % pages) * perPage : 0
        let lines = Array(all[first..<min(all.count, first + perPage)])
        let height = (pages > 1 ? perPage : lines.count) * 8 + 2
        let box = Rect(x: area.x, y: area.maxY - height, width: area.width, height: height)
        // The whole area is cleared, so no half-covered text shows above the box.
        bitmap.fill(box.y < area.y ? box : area, .clear)
        let problem = notice.kind == .problem
        bitmap.fill(box, problem ? .set : .clear)
        if !problem { bitmap.strokeRect(box) }
        for (index, line) in lines.enumerated() {
            SmallFont.draw(line, at: Point(box.x + 2, box.y + 2 + index * 8), into: &bitmap, problem ? .clear : .set)
        }
        if pages > 1 {
            // Which page: a short bar on the box's right edge, down the box as pages go by.
            let track = box.height - 4
            let y = box.y + 2 + track * (page % pages) / pages
            bitmap.fill(Rect(x: box.maxX - 2, y: y, width: 1, height: max(2, track / pages)), problem ? .clear : .set)
        }
    }

    /// Words on lines of at most `width` pixels; a word wider than a line is broken across
    /// lines (a long file name), never cut.
    public static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ").map(String.init) {
            let candidate = current.isEmpty ? word : current + " " + word
            if SmallFont.width(of: candidate) <= width {
                current = candidate
                continue
            }
            if !current.isEmpty { lines.append(current) }
            current = ""
            for character in word {
                let longer = current + String(character)
                if !current.isEmpty && SmallFont.width(of: longer) > width {
                    lines.append(current)
                    current = String(character)
                } else {
                    current = longer
                }
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    // MARK: main screen

    /// The tempo page. Playing, it shows what is sounding (from the timeline: a song's
    /// current tempo, in tenths while it ramps, its meter and beat); stopped, the settings.
    static func drawMain(_ model: ScreenModel, position: GridBeat?, into bitmap: inout Bitmap) {
        let settings = model.settings
        let sounding = position?.sounding ?? Sounding(
            bpm: settings.tempo.bpm.doubleValue, exactBPM: settings.tempo.bpm, isRamping: false, meter: settings.meter,
            beatUnit: settings.beatUnit, beatCount: settings.beatCount, accents: settings.accents)
        // Following a MIDI clock: its tempo averaged over 96 clocks, one decimal.
        drawTempo(model.midiSync?.bpm ?? sounding.tempoText, into: &bitmap)
        let marking = position == nil ? model.marking : sounding.marking.name
        SmallFont.draw(SmallFont.fitting(marking, maxWidth: 64), centeredAt: leftColumnCenter, y: 35, into: &bitmap)
        drawMeterLine(sounding, subdivisions: settings.subdivisions, currentBeat: position?.beat, into: &bitmap)
        bitmap.dottedVLine(pendulumArea.x - 2, 0, 63)

        let geometry = Pendulum.Geometry.mainScreen
        // Period and length follow the tempo sounding (through ramps and sections).
        let beatSeconds = position?.beatSeconds ?? (60 / sounding.bpm)
        let length = Pendulum.drawnLength(beatSeconds: beatSeconds, geometry: geometry)
        let savedClip = bitmap.clip
        bitmap.clip = pendulumArea
        // Stopped, the bob is held at the left end, where the first click after START finds it.
        var swing = -1.0
        if let position, let sampleRate = model.grid?.sampleRate {
            swing = Pendulum.swing(beatIndex: position.beatIndex, fraction: position.fraction)
            let secondsSinceBeat = position.fraction * Double(position.nextBeatSample - position.beatSample) / Double(sampleRate)
            if let radius = PulseRing.radius(secondsSinceBeat: secondsSinceBeat, beatSeconds: beatSeconds, level: position.level) {
                PulseRing.draw(center: geometry.pivot, radius: radius, level: position.level, into: &bitmap)
            }
        }
        Pendulum.draw(swing: swing, length: length, geometry: geometry, into: &bitmap)
        bitmap.clip = savedClip
    }

    /// Whole BPM in the large digits; a fractional part (presets such as 92.5, a ramp's
    /// tenths) small beside them. `text` is `Sounding.tempoText`.
    static func drawTempo(_ text: String, into bitmap: inout Bitmap) {
        let whole = Int(text.prefix { $0.isNumber }) ?? 0
        if let dot = text.firstIndex(of: ".") {
            let fraction = String(text[dot...])
            let fractionWidth = SmallFont.width(of: fraction)
            SegmentFont.large.drawNumber(whole, rightEdge: 63 - fractionWidth - 1, y: 0, into: &bitmap)
            SmallFont.draw(fraction, at: Point(63 - fractionWidth, 24), into: &bitmap)
        } else {
            SegmentFont.large.drawNumber(whole, rightEdge: 62, y: 0, into: &bitmap)
        }
    }

    /// The meter in numbers and one box per beat: tall for accents, short for normal beats, a
    /// dash for muted ones; the beat being heard is filled.
    static func drawMeterLine(_ settings: Sounding, subdivisions: Subdivisions, currentBeat: Int?, into bitmap: inout Bitmap) {
        let meterText = settings.meter.description
        SmallFont.draw(meterText, at: Point(1, 45), into: &bitmap)
        if settings.beatUnit != BeatUnit.quarter {
            Icons.drawNote(settings.beatUnit, head: Point(SmallFont.width(of: meterText) + 4, 48), stem: 6, compact: true, into: &bitmap)
        }
        if !subdivisions.layers.isEmpty {
            let text = subdivisions.layers.map(String.init).joined(separator: "+")
            let x = 63 - SmallFont.width(of: text)
            SmallFont.draw(text, at: Point(x, 45), into: &bitmap)
            bitmap.blit(Icons.layers, at: Point(x - 9, 45))
        }
        let count = settings.beatCount
        let top = 55
        guard count <= 12 else {
            // Too many beats for boxes: the position as numbers.
            let text = currentBeat.map { "\($0 + 1) / \(count)" } ?? "\(count)"
            SmallFont.draw(text, centeredAt: leftColumnCenter, y: top, into: &bitmap)
            return
        }
        let cell = min(12, 64 / count)
        let boxWidth = max(cell - 2, 2)
        let startX = leftColumnCenter - (count * cell - 2) / 2
        for beat in 0..<count {
            let x = startX + beat * cell
            let level = settings.accents.level(ofBeat: beat)
            let height = switch level {
            case .accent: 9
            case .soft: 8
            case .normal: 6
            case .muted: 2
            }
            let box = Rect(x: x, y: top + 9 - height, width: boxWidth, height: height)
            if beat == currentBeat || level == .muted { bitmap.fill(box) } else { bitmap.strokeRect(box) }
        }
    }

    // MARK: mode pages

    static func drawModeRing(_ mode: WheelMode, into bitmap: inout Bitmap) {
        let arc = OptionArc.icons
        arc.drawTrack(into: &bitmap)
        let modes = WheelMode.allCases
        let current = Double(modes.firstIndex(of: mode) ?? 0)
        for (index, candidate) in modes.enumerated() {
            guard let p = arc.point(index: index, position: current) else { continue }
            let origin = Point(p.x - 3, p.y - 3)
            if candidate == mode {
                bitmap.fill(Rect(x: origin.x - 2, y: origin.y - 2, width: 11, height: 11))
                bitmap.blit(candidate.icon, at: origin, .clear)
            } else {
                bitmap.fill(Rect(x: origin.x - 1, y: origin.y - 1, width: 9, height: 9), .clear)
                bitmap.blit(candidate.icon, at: origin)
            }
        }
    }

    static func drawModePage(_ model: ScreenModel, into bitmap: inout Bitmap) {
        let settings = model.settings
        switch (model.wheelMode, model.field) {
        case (.tempo, _):
            break
        case (.accents, .rhythm(let field)):
            RhythmScreens.drawEuclid(settings, field: field, into: &bitmap)
        case (.accents, .beatAccent(let beat)):
            drawAccents(settings, focus: beat, into: &bitmap)
        case (.accents, _):
            drawAccents(settings, focus: nil, into: &bitmap)
            let every = FieldEditor.accentEvery(settings).map { $0 == 0 ? "no accents" : "accent every \($0)" } ?? "custom accents"
            SmallFont.draw(every, centeredAt: 74, y: 57, into: &bitmap)
        case (.meter, .beatUnit):
            drawBeatUnitPage(settings.beatUnit, into: &bitmap)
        case (.meter, let field):
            drawMeterPage(settings, focus: field == .denominator ? 1 : 0, into: &bitmap)
        case (.subdivisions, .rhythm(let field)):
            RhythmScreens.draw(settings, field: field, into: &bitmap)
        case (.subdivisions, let field):
            drawLayers(settings, field: field, into: &bitmap)
        case (.sound, _):
            var arc = OptionArc.text
            arc.center = Point(-50, 32)
            arc.drawLabels(model.soundSets, into: &bitmap)
            bitmap.blit(Icons.speaker.scaled(by: 2), at: Point(112, 6))
        case (.volumes, let field):
            drawVolumes(settings, field: field, into: &bitmap)
        case (.song, .songCoach):
            drawCoachPage(model.coach ?? CoachPanel(), into: &bitmap)
        case (.song, let field):
            drawSongPage(model.song, field: field, into: &bitmap)
        case (.coach, _):
            drawCoachPage(model.coach ?? CoachPanel(), into: &bitmap)
        }
        // The ring sits on top so pages may use the full width behind it.
        drawModeRing(model.wheelMode, into: &bitmap)
    }

    /// One box per beat, 8 to a row, 16 to a page (the page that holds the focused beat).
    static func drawAccents(_ settings: MetronomeSettings, focus: Int?, into bitmap: inout Bitmap) {
        let count = settings.beatCount
        let firstBeat = (max(0, min(focus ?? 0, count - 1)) / 16) * 16
        for beat in firstBeat..<min(count, firstBeat + 16) {
            let slot = beat - firstBeat
            let box = Rect(x: 22 + (slot % 8) * 13, y: 8 + (slot / 8) * 26, width: 11, height: 11)
            switch settings.accents.level(ofBeat: beat) {
            case .accent: bitmap.fill(box)
            case .soft:
                bitmap.strokeRect(box)
                bitmap.fill(Rect(x: box.x, y: box.y + 5, width: box.width, height: box.height - 5))
            case .normal: bitmap.strokeRect(box)
            case .muted:
                bitmap.plot(box.x, box.y); bitmap.plot(box.maxX - 1, box.y)
                bitmap.plot(box.x, box.maxY - 1); bitmap.plot(box.maxX - 1, box.maxY - 1)
                bitmap.hline(box.x + 3, box.maxX - 4, box.y + 5)
            }
            if beat == focus { bitmap.caretUp(tip: Point(box.x + 5, box.maxY + 2), size: 4) }
        }
        if count > 16 {
            SmallFont.draw("\(firstBeat + 1)-\(min(count, firstBeat + 16))/\(count)", at: Point(22, 57), into: &bitmap)
        }
    }

    /// The time signature stacked as printed music has it, with the beat unit beside it.
    static func drawMeterPage(_ settings: MetronomeSettings, focus: Int, into bitmap: inout Bitmap) {
        let font = SegmentFont.medium
        let centerX = 62
        font.drawNumber(settings.meter.numerator, centeredAt: centerX, y: 4, into: &bitmap)
        bitmap.fill(Rect(x: centerX - 16, y: 30, width: 32, height: 2))
        font.drawNumber(settings.meter.denominator, centeredAt: centerX, y: 38, into: &bitmap)
        bitmap.arrow(tip: Point(centerX - 22, focus == 0 ? 14 : 48), direction: 1, size: 4)
        Icons.drawNote(settings.beatUnit, head: Point(102, 44), stem: 12, into: &bitmap)
        SmallFont.draw("=", at: Point(114, 42), into: &bitmap)
    }

    /// The note value the BPM counts, drawn large, with its tuplet number and its fraction.
    static func drawBeatUnitPage(_ unit: BeatUnit, into bitmap: inout Bitmap) {
        var note = Bitmap(width: 12, height: 20)
        Icons.drawNote(unit, head: Point(0, 14), stem: 12, into: &note)
        bitmap.blit(note.scaled(by: 3), at: Point(44, 2))
        if let tuplet = Icons.tupletNumber(division: unit.division) {
            var number = Bitmap(width: 12, height: 7)
            SmallFont.draw("\(tuplet)", at: Point(0, 0), into: &number)
            bitmap.blit(number.scaled(by: 2), at: Point(92, 4))
        }
        SmallFont.draw(unit.description, at: Point(127 - SmallFont.width(of: unit.description), 56), into: &bitmap)
    }

    /// Layers 2...9 as columns: height is the layer's volume, hollow when the layer is off.
    /// The field being set is marked: every active layer for the set, or one layer.
    static func drawLayers(_ settings: MetronomeSettings, field: Field, into bitmap: inout Bitmap) {
        let barTop = 10, barBottom = 50
        for layer in Subdivisions.range {
            let x = 22 + (layer - 2) * 13
            let active = settings.subdivisions.layers.contains(layer)
            let volume = settings.volumes.layer(layer)
            let height = max(1, (barBottom - barTop) * volume / 100)
            let bar = Rect(x: x, y: barBottom - height, width: 9, height: height)
            if active { bitmap.fill(bar) } else { bitmap.dottedHLine(x, x + 8, barBottom - 1) }
            let label = Rect(x: x, y: 53, width: 9, height: 11)
            let focused = field == .layer(layer) || (field == .subdivisions && active)
            if focused {
                bitmap.fill(label)
                SmallFont.draw("\(layer)", at: Point(x + 2, 55), into: &bitmap, .clear)
            } else {
                SmallFont.draw("\(layer)", at: Point(x + 2, 55), into: &bitmap)
            }
            if field == .layer(layer) { SmallFont.draw(active ? "on" : "off", centeredAt: x + 4, y: max(5, barBottom - height - 9), into: &bitmap) }
        }
        if field == .subdivisions {
            let text = settings.subdivisions.layers.isEmpty ? "none" : settings.subdivisions.layers.map(String.init).joined(separator: "+")
            SmallFont.draw(text, at: Point(127 - SmallFont.width(of: text), 5), into: &bitmap)
        }
    }

    /// Every volume as a bar: master, accent, beat and each active layer; the one being set
    /// is marked and its value written above it.
    static func drawVolumes(_ settings: MetronomeSettings, field: Field, into bitmap: inout Bitmap) {
        let channels = WheelMode.volumes.fields(for: settings).compactMap { f -> VolumeChannel? in
            if case .volume(let c) = f { return c }
            return nil
        }
        let barTop = 14, barBottom = 50
        let left = 22, width = 104
        let cell = width / channels.count
        let barWidth = min(16, cell - 3)
        for (index, channel) in channels.enumerated() {
            let value = channel.value(in: settings.volumes)
            let x = left + index * cell + (cell - barWidth) / 2
            let height = max(1, (barBottom - barTop) * value / 100)
            bitmap.strokeRect(Rect(x: x, y: barTop, width: barWidth, height: barBottom - barTop))
            bitmap.fill(Rect(x: x, y: barBottom - height, width: barWidth, height: height))
            let focused = field == .volume(channel)
            let iconBox = Rect(x: x + (barWidth - 11) / 2, y: 53, width: 11, height: 11)
            if focused {
                bitmap.fill(iconBox)
                let text = "\(value)"
                let center = min(max(x + barWidth / 2, left + SmallFont.width(of: text) / 2), 127 - SmallFont.width(of: text) / 2)
                SmallFont.draw(text, centeredAt: center, y: 5, into: &bitmap)
            }
            let mode: DrawMode = focused ? .clear : .set
            let icon = Rect(x: iconBox.x + 2, y: iconBox.y + 2, width: 7, height: 7)
            switch channel {
            case .master: bitmap.blit(Icons.speaker, at: Point(icon.x, icon.y), mode)
            case .accent: bitmap.fill(icon, mode)
            case .beat: bitmap.strokeRect(Rect(x: icon.x, y: icon.y + 2, width: 7, height: 5), mode)
            case .layer(let n): SmallFont.draw("\(n)", at: Point(icon.x + 1, icon.y), into: &bitmap, mode)
            case .soft:
                // As on the accents page: an outline filled to half.
                bitmap.strokeRect(icon, mode)
                bitmap.fill(Rect(x: icon.x, y: icon.y + 4, width: 7, height: 3), mode)
            case .poly(let m): RhythmScreens.drawPolyIcon(m, at: Point(icon.x, icon.y), mode, into: &bitmap)
            }
        }
    }

    // MARK: menu and dimmed

    /// The menu ring on the left, the page title in its own band at the top right (the
    /// ring's entries stay below it), each entry's value right-aligned and never cut, and
    /// an inverted value with arrows while it is being changed.
    static func drawMenu(_ choice: ScreenChoice, into bitmap: inout Bitmap) {
        // The title band: no entry is drawn under the title, not even in part.
        OptionArc.text.drawLabels(choice, valueColumn: 122, top: 10, into: &bitmap)
        bitmap.fill(Rect(x: 0, y: 0, width: 128, height: 10), .clear)
        if !choice.title.isEmpty {
            let title = SmallFont.fitting(choice.title, maxWidth: 90)
            SmallFont.draw(title, at: Point(123 - SmallFont.width(of: title), 1), into: &bitmap)
            bitmap.dottedHLine(127 - SmallFont.width(of: title) - 4, 127, 9)
        }
        if choice.entries.count > 1 {
            // Where the selection is in the whole list: a short bar on the right edge.
            let track = 48, top = 13
            let y = top + track * choice.selectedIndex / (choice.entries.count - 1)
            bitmap.dottedVLine(126, top, top + track + 1)
            bitmap.fill(Rect(x: 125, y: y - 1, width: 3, height: 3))
        }
    }

    /// Only the BPM, small and half-lit, at a position that moves with `dimStep`.
    static func drawDimmed(_ model: ScreenModel, into bitmap: inout Bitmap) {
        let font = SegmentFont.small
        let whole = Int(model.settings.tempo.bpm.floor)
        let width = font.width(digits: String(whole).count)
        let step = max(0, model.dimStep)
        let x = 4 + (step * 37) % (124 - width - 4)
        let y = 4 + (step * 23) % (60 - font.digitHeight - 4)
        font.drawNumber(whole, rightEdge: x + width, y: y, into: &bitmap)
        bitmap.dither(Rect(x: x, y: y, width: width, height: font.digitHeight))
    }
}

extension WheelMode {
    /// The mode's symbol on the screen's mode ring.
    var icon: Bitmap {
        switch self {
        case .tempo: Icons.tempo
        case .accents: Icons.accent
        case .meter: Icons.meter
        case .subdivisions: Icons.layers
        case .sound: Icons.speaker
        case .volumes: Icons.volume
        case .song: Icons.song
        case .coach: Icons.coach
        }
    }
}

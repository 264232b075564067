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
        switch model.page {
        case .playing:
            if let timeline = model.timeline {
                drawMain(model, position: timeline.position(atSample: heardSample), timeline: timeline, into: &bitmap)
            } else {
                drawMain(model, position: nil, timeline: nil, into: &bitmap)
            }
        case .stopped:
            if model.wheelMode == .tempo {
                drawMain(model, position: nil, timeline: nil, into: &bitmap)
                bitmap.blit(model.wheelMode.icon, at: Point(120, 0))
            } else {
                drawModePage(model, into: &bitmap)
            }
        case .menu(let choice):
            drawMenu(choice, into: &bitmap)
        case .dimmed:
            drawDimmed(model, into: &bitmap)
        }
        return bitmap
    }

    // MARK: main screen

    static func drawMain(_ model: ScreenModel, position: BeatTimeline.Position?, timeline: BeatTimeline?, into bitmap: inout Bitmap) {
        drawTempo(model.settings.tempo, into: &bitmap)
        SmallFont.draw(SmallFont.fitting(model.marking, maxWidth: 64), centeredAt: leftColumnCenter, y: 35, into: &bitmap)
        drawMeterLine(model.settings, currentBeat: position?.beat, into: &bitmap)
        bitmap.dottedVLine(pendulumArea.x - 2, 0, 63)

        let geometry = Pendulum.Geometry.mainScreen
        let beatSeconds = timeline?.beatSeconds ?? (60 / model.settings.tempo.bpm.doubleValue)
        let length = Pendulum.drawnLength(beatSeconds: beatSeconds, geometry: geometry)
        let savedClip = bitmap.clip
        bitmap.clip = pendulumArea
        var swing = 0.0
        if let position, let timeline {
            swing = Pendulum.swing(beatIndex: position.beatIndex, fraction: position.fraction)
            let secondsSinceBeat = position.fraction * Double(position.nextBeatSample - position.beatSample) / Double(timeline.sampleRate)
            if let radius = PulseRing.radius(secondsSinceBeat: secondsSinceBeat, beatSeconds: beatSeconds, level: position.level) {
                PulseRing.draw(center: geometry.pivot, radius: radius, level: position.level, into: &bitmap)
            }
        }
        Pendulum.draw(swing: swing, length: length, geometry: geometry, into: &bitmap)
        bitmap.clip = savedClip
    }

    /// Whole BPM in the large digits; a fractional part (presets such as 92.5) small beside them.
    static func drawTempo(_ tempo: Tempo, into bitmap: inout Bitmap) {
        let bpm = tempo.bpm
        let whole = Int(bpm.floor)
        if bpm.isInteger {
            SegmentFont.large.drawNumber(whole, rightEdge: 62, y: 0, into: &bitmap)
        } else {
            let text = tempo.description
            let fraction = String(text[text.firstIndex(of: ".")!...])
            let fractionWidth = SmallFont.width(of: fraction)
            SegmentFont.large.drawNumber(whole, rightEdge: 63 - fractionWidth - 1, y: 0, into: &bitmap)
            SmallFont.draw(fraction, at: Point(63 - fractionWidth, 24), into: &bitmap)
        }
    }

    /// The meter in numbers and one box per beat: tall for accents, short for normal beats, a
    /// dash for muted ones; the beat being heard is filled.
    static func drawMeterLine(_ settings: MetronomeSettings, currentBeat: Int?, into bitmap: inout Bitmap) {
        let meterText = settings.meter.description
        SmallFont.draw(meterText, at: Point(1, 45), into: &bitmap)
        if settings.beatUnit != BeatUnit.quarter {
            Icons.drawNote(settings.beatUnit, head: Point(SmallFont.width(of: meterText) + 4, 48), stem: 6, compact: true, into: &bitmap)
        }
        if !settings.subdivisions.layers.isEmpty {
            let text = settings.subdivisions.layers.map(String.init).joined(separator: "+")
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

    static func drawModeRing(_ mode: ScreenWheelMode, into bitmap: inout Bitmap) {
        let arc = OptionArc.icons
        arc.drawTrack(into: &bitmap)
        let modes = ScreenWheelMode.allCases
        for (index, candidate) in modes.enumerated() {
            guard let p = arc.point(index: index, position: Double(mode.rawValue)) else { continue }
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
        switch model.wheelMode {
        case .tempo:
            break
        case .accents:
            drawAccents(settings, focus: model.focus, into: &bitmap)
        case .meter:
            drawMeterPage(settings, focus: model.focus, into: &bitmap)
        case .beatUnit:
            drawBeatUnitPage(settings.beatUnit, into: &bitmap)
        case .subdivisions:
            drawLayers(settings, focus: model.focus, into: &bitmap)
        case .sound:
            var arc = OptionArc.text
            arc.center = Point(-50, 32)
            arc.drawLabels(model.soundSets, into: &bitmap)
            bitmap.blit(Icons.speaker.scaled(by: 2), at: Point(112, 0))
        case .volume:
            drawVolumes(settings.volumes, focus: model.focus, into: &bitmap)
        }
        // The ring sits on top so pages may use the full width behind it.
        drawModeRing(model.wheelMode, into: &bitmap)
    }

    /// One box per beat, 8 to a row, 16 to a page (the page that holds the focused beat).
    static func drawAccents(_ settings: MetronomeSettings, focus: Int, into bitmap: inout Bitmap) {
        let count = settings.beatCount
        let firstBeat = (max(0, min(focus, count - 1)) / 16) * 16
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
    static func drawLayers(_ settings: MetronomeSettings, focus: Int, into bitmap: inout Bitmap) {
        let barTop = 10, barBottom = 50
        for layer in Subdivisions.range {
            let x = 22 + (layer - 2) * 13
            let active = settings.subdivisions.layers.contains(layer)
            let volume = settings.volumes.layer(layer)
            let height = max(1, (barBottom - barTop) * volume / 100)
            let bar = Rect(x: x, y: barBottom - height, width: 9, height: height)
            if active { bitmap.fill(bar) } else { bitmap.dottedHLine(x, x + 8, barBottom - 1) }
            let label = Rect(x: x, y: 53, width: 9, height: 11)
            if layer == focus {
                bitmap.fill(label)
                SmallFont.draw("\(layer)", at: Point(x + 2, 55), into: &bitmap, .clear)
                if active { SmallFont.draw("\(volume)", centeredAt: x + 4, y: max(0, barBottom - height - 9), into: &bitmap) }
            } else {
                SmallFont.draw("\(layer)", at: Point(x + 2, 55), into: &bitmap)
            }
        }
    }

    /// Master, accent and beat volumes as bars under a speaker, an accent box and a beat box.
    static func drawVolumes(_ volumes: Volumes, focus: Int, into bitmap: inout Bitmap) {
        let values = [volumes.master, volumes.accent, volumes.beat]
        let barTop = 10, barBottom = 49
        for (index, value) in values.enumerated() {
            let x = 30 + index * 32
            let height = max(1, (barBottom - barTop) * value / 100)
            bitmap.strokeRect(Rect(x: x, y: barTop, width: 16, height: barBottom - barTop))
            bitmap.fill(Rect(x: x, y: barBottom - height, width: 16, height: height))
            let iconBox = Rect(x: x + 2, y: 53, width: 11, height: 11)
            if index == focus {
                bitmap.fill(iconBox)
                SmallFont.draw("\(value)", centeredAt: x + 8, y: 1, into: &bitmap)
            }
            let mode: DrawMode = index == focus ? .clear : .set
            let icon = Rect(x: iconBox.x + 2, y: iconBox.y + 2, width: 7, height: 7)
            switch index {
            case 0: bitmap.blit(Icons.speaker, at: Point(icon.x, icon.y), mode)
            case 1: bitmap.fill(icon, mode)
            default: bitmap.strokeRect(Rect(x: icon.x, y: icon.y + 2, width: 7, height: 5), mode)
            }
        }
    }

    // MARK: menu and dimmed

    static func drawMenu(_ choice: ScreenChoice, into bitmap: inout Bitmap) {
        OptionArc.text.drawLabels(choice, into: &bitmap)
        if !choice.title.isEmpty {
            let title = SmallFont.fitting(choice.title, maxWidth: 60)
            SmallFont.draw(title, at: Point(127 - SmallFont.width(of: title), 0), into: &bitmap)
        }
        if choice.entries.count > 1 {
            // Where the selection is in the whole list: a short bar on the right edge.
            let track = 50, top = 12
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

// SPDX-License-Identifier: GPL-3.0-or-later

/// The audio input's round trip (the box's click out of the speaker, into the microphone,
/// through the capture): the lag at which the input holds a copy of the clicks the box
/// played. The same matched filter as the click-bleed fit, so the lag is found to the sample.
public enum CoachCalibration {
    /// The clicks Menu > Coach > Calibrate plays.
    public static let clicks = 16

    public enum Failure: Error, Equatable, Sendable {
        /// The input holds no copy of the clicks (microphone off, or too far from the speaker).
        case notHeard
        /// Some clicks were not heard (noise, or a hit on them): do it again in quiet.
        case clicksMissing(Int)
    }

    /// The round trip from the onsets the live detector heard while the clicks played, both
    /// on the engine's sample clock (`onsets` mapped from their capture times as hits are):
    /// the lag that most clicks agree on (each click's onsets from 2 ms before it to
    /// `maximumLag` after it are its candidates; a lag is agreed when a click has a candidate
    /// within 1 ms of it), the median of the agreeing candidates, never below 0. A noise
    /// onset or a hit during the clicks does not move it; 12 of 16 clicks must agree.
    public static func roundTrip(onsets: [Double], clicks: [Int64], sampleRate: Int, maximumLag: Int) -> Result<Int, Failure> {
        let early = Double(sampleRate) * 0.002, tolerance = Double(sampleRate) * 0.001
        let candidates: [[Double]] = clicks.map { click in
            onsets.compactMap { onset in
                let lag = onset - Double(click)
                return lag >= -early && lag <= Double(maximumLag) ? lag : nil
            }
        }
        var best: [Double] = []
        for lag in candidates.joined() {
            // Per click, its candidate nearest this lag, when within the tolerance.
            let agreeing = candidates.compactMap { list in
                list.min(by: { abs($0 - lag) < abs($1 - lag) }).flatMap { abs($0 - lag) <= tolerance ? $0 : nil }
            }
            if agreeing.count > best.count || (agreeing.count == best.count && lag < (best.first ?? .infinity)) {
                best = agreeing.sorted()
            }
        }
        let needed = clicks.count - clicks.count / 4
        guard best.count >= max(2, clicks.count / 4) else { return .failure(.notHeard) }
        guard best.count >= needed else { return .failure(.clicksMissing(clicks.count - best.count)) }
        let median = best.count % 2 == 1 ? best[best.count / 2] : (best[best.count / 2 - 1] + best[best.count / 2]) / 2
        return .success(max(0, Int(median.rounded())))
    }

    /// `output` and `input` start at the same instant (sample 0 of each); `clickStarts`:
    /// the output samples where the clicks begin. The round trip in samples.
    public static func roundTrip(input: [Float], output: [Float], clickStarts: [Int], sampleRate: Int) -> Result<Int, Failure> {
        guard let fit = BleedFit.estimate(input: input, output: output, clickStarts: clickStarts, sampleRate: sampleRate,
                                          lags: 0...(sampleRate / 2)) else { return .failure(.notHeard) } // up to half a second
        guard fit.absentClicks.isEmpty else { return .failure(.clicksMissing(fit.absentClicks.count)) }
        return .success(fit.lag)
    }
}

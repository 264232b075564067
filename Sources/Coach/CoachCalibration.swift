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

    /// `output` and `input` start at the same instant (sample 0 of each); `clickStarts`:
    /// the output samples where the clicks begin. The round trip in samples.
    public static func roundTrip(input: [Float], output: [Float], clickStarts: [Int], sampleRate: Int) -> Result<Int, Failure> {
        guard let fit = BleedFit.estimate(input: input, output: output, clickStarts: clickStarts, sampleRate: sampleRate,
                                          lags: 0...(sampleRate / 2)) else { return .failure(.notHeard) } // up to half a second
        guard fit.absentClicks.isEmpty else { return .failure(.clicksMissing(fit.absentClicks.count)) }
        return .success(fit.lag)
    }
}

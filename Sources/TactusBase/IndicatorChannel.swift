// SPDX-License-Identifier: GPL-3.0-or-later
/// The LEDs and the buzzer: the core schedules pulses on them, HAL drives them. Raw values
/// are the board file's keys.
public enum IndicatorChannel: String, Sendable, Hashable, CaseIterable {
    case accentLED = "led_accent"
    case beatLED = "led_beat"
    case subdivisionLED = "led_subdivision"
    case buzzer
}

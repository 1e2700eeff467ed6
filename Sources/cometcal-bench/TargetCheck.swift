import Foundation

/// One figure checked against the target: its value, the reference it is divided by
/// (measured in the same run), and whether the target is met. A figure that could not be
/// measured (no python3) says so instead of passing.
struct TargetCheck {
    enum Unit {
        case milliseconds, mebibytes, times

        func text(_ value: Double) -> String {
            switch self {
            case .milliseconds: return value >= 1_000 ? String(format: "%.2f s", value / 1_000) : value >= 10 ? String(format: "%.1f ms", value) : String(format: "%.3f ms", value)
            case .mebibytes: return String(format: "%.0f MiB", value)
            case .times: return String(format: "%.1f×", value)
            }
        }
    }

    enum Target {
        case valueAtMost(Double)
        case valueAtLeast(Double)
        case ratioAtMost(Double)
        case both(value: Double, ratio: Double)
        /// At least this many times faster than the reference: reference ÷ value ≥ it.
        case fasterThanReference(Double)
    }

    let figure: String
    let value: Double?
    let unit: Unit
    /// The reference's value (in the figure's unit) and what it is.
    let reference: (value: Double, name: String)?
    let target: Target?
    var note: String? = nil

    var ratio: Double? {
        guard let value, let reference, reference.value > 0 else { return nil }
        return value / reference.value
    }

    /// nil when there is no target, or nothing to compare (a figure or a reference missing).
    var met: Bool? {
        guard let target, let value else { return nil }
        switch target {
        case .valueAtMost(let limit): return value <= limit
        case .valueAtLeast(let limit): return value >= limit
        case .ratioAtMost(let limit): return ratio.map { $0 <= limit }
        case .both(let limit, let ratioLimit): return ratio.map { value <= limit && $0 <= ratioLimit }
        case .fasterThanReference(let times): return speedup.map { $0 >= times }
        }
    }

    /// How many times faster than the reference the figure is (reference ÷ value).
    var speedup: Double? {
        guard let value, let reference, value > 0 else { return nil }
        return reference.value / value
    }

    /// The ratio as the report prints it: a speed-up for a target that asks for one.
    var ratioText: String? {
        if case .fasterThanReference? = target { return speedup.map(TargetCheck.speedupText) }
        return ratio.map { String(format: "%.1f×", $0) }
    }

    /// "12.3× faster", or "4.0× slower" below 1.
    static func speedupText(_ speedup: Double) -> String {
        speedup >= 1 ? String(format: "%.1f× faster", speedup) : String(format: "%.1f× slower", 1 / speedup)
    }

    var targetText: String {
        guard let target else { return "–" }
        switch target {
        case .valueAtMost(let limit): return "≤ " + unit.text(limit)
        case .valueAtLeast(let limit): return "≥ " + unit.text(limit)
        case .ratioAtMost(let limit): return String(format: "≤ %g× ref", limit)
        case .both(let limit, let ratioLimit): return "≤ " + unit.text(limit) + String(format: " and ≤ %g× ref", ratioLimit)
        case .fasterThanReference(let times): return String(format: "≥ %g× faster than ref", times)
        }
    }

    var verdict: String {
        switch met {
        case true?: return "met"
        case false?: return "NOT met"
        case nil: return target == nil ? "" : "not measured"
        }
    }

    /// The checks of a scenario timed one operation at a time, from its p50/p99/ratio targets.
    static func derived(_ result: ScenarioResult) -> [TargetCheck] {
        guard result.checks.isEmpty, result.daemon == nil else { return result.checks }
        let scenario = result.scenario
        let summary = result.measurement.summary
        let reference = result.referenceMeasurement.map { ($0.summary.p50, result.reference?.name ?? "reference") }
        var checks: [TargetCheck] = []
        if let limit = scenario.targetRatio {
            checks.append(TargetCheck(figure: "\(scenario.name) p50", value: summary.p50, unit: .milliseconds, reference: reference, target: .ratioAtMost(limit)))
        } else if let limit = scenario.targetP50 {
            checks.append(TargetCheck(figure: "\(scenario.name) p50", value: summary.p50, unit: .milliseconds, reference: reference, target: .valueAtMost(limit)))
        }
        if let limit = scenario.targetP99 {
            checks.append(TargetCheck(figure: "\(scenario.name) p99", value: summary.p99, unit: .milliseconds, reference: nil, target: .valueAtMost(limit)))
        }
        return checks
    }
}

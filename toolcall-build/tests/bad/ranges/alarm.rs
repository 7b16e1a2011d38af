use toolcall_runtime::ToolParam;

pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("set_alarm", "hour").range(0, 300),
    ToolParam::new("set_alarm", "minute").range(59, 0),
    ToolParam::new("set_alarm", "label").range(1, 2),
    ToolParam::new("set_alarm", "repeat").length(1, 7),
    ToolParam::new("set_alarm", "days").length(1, 2),
    ToolParam::new("set_alarm", "snooze").length(3, 1),
    ToolParam::new("set_alarm", "volume").min(-1),
];

/// Set an alarm.
pub fn set_alarm(
    hour: u8,
    minute: u8,
    label: String,
    repeat: bool,
    days: [u8; 3],
    snooze: Vec<u8>,
    volume: u8,
) -> String {
    format!("{hour}:{minute} {label} {repeat} {days:?} {snooze:?} {volume}")
}

//! Small programs, each aimed at one construct, run by rpy and compared
//! with CPython: one test binary for all of them, so that the suite links
//! it once (every file of tests/ is a binary of its own).

#[path = "../support/mod.rs"]
mod support;

mod annotator_policy;
mod bool_builtin;
mod class_attr_containers;
mod class_of_instance;
mod class_set_calls;
mod classes_attribute;
mod divmod;
mod int_base;
mod isinstance_builtin_types;
mod min_max_of_strings;
mod nested_functions;
mod none_parameters;
mod none_strings;
mod numeric_strings;
mod object_identity;
mod range_variable_step;
mod star_args_defaults;
mod star_args_length;
mod tuple_to_list;

/// Python lines, in a loop's body, that print `expr` or the message of
/// the ValueError it raises.
fn print_value_or_error(expr: &str) -> String {
    format!(
        "        try:\n\
         \x20           value = {expr}\n\
         \x20       except ValueError as e:\n\
         \x20           print('ValueError: %s' % str(e))\n\
         \x20       else:\n\
         \x20           print(value)\n"
    )
}

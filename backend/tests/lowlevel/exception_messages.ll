# An uncaught exception whose instance has a message (`exc_message`, the
# field of BaseException's struct) ends the run with CPython's last
# traceback line, `Class: message`; an empty or null message prints the
# class's name alone. Which one is raised depends on the number of arguments.
type array_rpy_string = GcArray(Ptr(rpy_string))
type list_rpy_string = GcStruct { length: Signed, items: Ptr(array_rpy_string) }
type rpy_string = GcStruct { hash: Signed, length: Signed, ..Array(Char) }
type object = GcStruct { typeptr: Ptr(object_vtable) }
type object_vtable = GcStruct { subclassrange_min: Signed, subclassrange_max: Signed, name: Ptr(rpy_string) }
type inst_BaseException = GcStruct { typeptr: Ptr(object_vtable), exc_message: Ptr(rpy_string) }
type inst_MyError = GcStruct { typeptr: Ptr(object_vtable), exc_message: Ptr(rpy_string), code: Signed }
prebuilt &0 = struct<object_vtable> {subclassrange_min: 1, subclassrange_max: 2, name: "ValueError"}
prebuilt &1 = struct<object_vtable> {subclassrange_min: 2, subclassrange_max: 3, name: "__main__.MyError"}
prebuilt &2 = struct<inst_BaseException> {typeptr: &0, exc_message: "bad value"}
prebuilt &3 = struct<inst_BaseException> {typeptr: &0, exc_message: ""}
entry entry_point

graph entry_point(argv_0) {
  block0(argv_0: Ptr(list_rpy_string)):
    v1: Signed = getfield(argv_0, #length)
    v2: Void = direct_call($rpy_print_str, "start\x0a")
    v3: Signed = direct_call(@raiser, v1)
    -> return(v3)
  returns v4: Signed
  raises v5: Ptr(object_vtable), v6: Ptr(object)
}

graph raiser(n_0) {
  block0(n_0: Signed):
    v1: Bool = int_eq(n_0, 1)
    switch v1
      False -> block1(n_0)
      True -> except(&0, &2)
  block1(n_2: Signed):
    v3: Bool = int_eq(n_2, 2)
    switch v3
      False -> block2(n_2)
      True -> except(&0, &3)
  block2(n_4: Signed):
    e_5: Ptr(inst_MyError) = malloc(#inst_MyError)
    v6: Void = setfield(e_5, #typeptr, &1)
    v7: Void = setfield(e_5, #code, n_4)
    v8: Bool = int_eq(n_4, 4)
    switch v8
      False -> block3(e_5)
      True -> block4(e_5)
  block4(e_9: Ptr(inst_MyError)):
    v10: Void = setfield(e_9, #exc_message, "code 4")
    -> block3(e_9)
  block3(e_11: Ptr(inst_MyError)):
    v12: Ptr(object) = cast_pointer(e_11)
    -> except(&1, v12)
  returns v13: Signed
  raises v14: Ptr(object_vtable), v15: Ptr(object)
}

# Exceptions: a raise caught by a handler two calls up, a handler of a base
# class catching a subclass's instance, handlers tried in order, a re-raise,
# a Void and a Float function raising, and (by argv[1]) an exception that
# nothing catches: the run ends with its class's name on stderr, status 1.
type array_rpy_string = GcArray(Ptr(rpy_string))
type list_rpy_string = GcStruct { length: Signed, items: Ptr(array_rpy_string) }
type rpy_string = GcStruct { hash: Signed, length: Signed, ..Array(Char) }
type object = GcStruct { typeptr: Ptr(object_vtable) }
type object_vtable = GcStruct { subclassrange_min: Signed, subclassrange_max: Signed, name: Ptr(rpy_string) }
type inst_MyError = GcStruct { typeptr: Ptr(object_vtable), code: Signed }
prebuilt &0 = struct<object_vtable> {subclassrange_min: 1, subclassrange_max: 10, name: "Exception"}
prebuilt &1 = struct<object_vtable> {subclassrange_min: 2, subclassrange_max: 4, name: "ValueError"}
prebuilt &2 = struct<object_vtable> {subclassrange_min: 3, subclassrange_max: 4, name: "__main__.MyError"}
prebuilt &3 = struct<object_vtable> {subclassrange_min: 4, subclassrange_max: 5, name: "KeyError"}
prebuilt &4 = struct<object> {typeptr: &3}
prebuilt &5 = struct<object> {typeptr: &1}
entry entry_point

graph entry_point(argv_0) {
  block0(argv_0: Ptr(list_rpy_string)):
    v1: Signed = direct_call(@catcher, 0)
    v2: Void = direct_call(@print_int, v1)
    v3: Signed = direct_call(@catcher, 1)
    v4: Void = direct_call(@print_int, v3)
    v5: Signed = direct_call(@catcher, 3)
    v6: Void = direct_call(@print_int, v5)
    v7: Signed = direct_call(@in_order, 2)
    v8: Void = direct_call(@print_int, v7)
    v9: Signed = direct_call(@in_order, 1)
    v10: Void = direct_call(@print_int, v9)
    v11: Signed = direct_call(@in_order, 5)
    v12: Void = direct_call(@print_int, v11)
    v13: Signed = direct_call(@void_and_float, 0)
    v14: Void = direct_call(@print_int, v13)
    v15: Signed = direct_call(@void_and_float, 1)
    v16: Void = direct_call(@print_int, v15)
    v17: Signed = getfield(argv_0, #length)
    v18: Bool = int_gt(v17, 1)
    switch v18
      False -> return(0)
      True -> block1(argv_0)
  block1(argv_19: Ptr(list_rpy_string)):
    v20: Ptr(array_rpy_string) = getfield(argv_19, #items)
    v21: Ptr(rpy_string) = getarrayitem(v20, 1)
    n_22: Signed = direct_call($rpy_str_to_int, v21)
    v23: Signed = direct_call(@reraiser, n_22)
    v24: Void = direct_call(@print_int, v23)
    -> return(3)
  returns v25: Signed
  raises v26: Ptr(object_vtable), v27: Ptr(object)
}

graph print_int(n_0) {
  block0(n_0: Signed):
    v1: Ptr(rpy_string) = direct_call($rpy_str_from_int, n_0)
    v2: Void = direct_call($rpy_print_str, v1)
    v3: Void = direct_call($rpy_print_char, "\x0a")
    -> return(None)
  returns v4: Void
  raises v5: Ptr(object_vtable), v6: Ptr(object)
}

graph print_class(etype_0) {
  block0(etype_0: Ptr(object_vtable)):
    v1: Ptr(rpy_string) = getfield(etype_0, #name)
    v2: Void = direct_call($rpy_print_str, "caught ")
    v3: Void = direct_call($rpy_print_str, v1)
    v4: Void = direct_call($rpy_print_char, "\x0a")
    -> return(None)
  returns v5: Void
  raises v6: Ptr(object_vtable), v7: Ptr(object)
}

graph thrower(n_0) {
  block0(n_0: Signed):
    v1: Bool = int_eq(n_0, 1)
    switch v1
      False -> block1(n_0)
      True -> block2(n_0)
  block1(n_3: Signed):
    v4: Bool = int_eq(n_3, 2)
    switch v4
      False -> block3(n_3)
      True -> except(&3, &4)
  block3(n_5: Signed):
    v6: Bool = int_eq(n_5, 3)
    switch v6
      False -> block4(n_5)
      True -> except(&1, &5)
  block4(n_7: Signed):
    v8: Signed = int_mul(n_7, 10)
    -> return(v8)
  block2(n_9: Signed):
    e_10: Ptr(inst_MyError) = malloc(#inst_MyError)
    v11: Void = setfield(e_10, #typeptr, &2)
    v12: Void = setfield(e_10, #code, 42)
    v13: Ptr(object) = cast_pointer(e_10)
    -> except(&2, v13)
  returns v14: Signed
  raises v15: Ptr(object_vtable), v16: Ptr(object)
}

graph middle(n_0) {
  block0(n_0: Signed):
    v1: Signed = direct_call(@thrower, n_0)
    v2: Signed = int_add(v1, 1)
    -> return(v2)
  returns v3: Signed
  raises v4: Ptr(object_vtable), v5: Ptr(object)
}

graph catcher(n_0) {
  block0(n_0: Signed):
    v1: Signed = direct_call(@middle, n_0)
    switch last_exception
      -> return(v1)
      &1 catch(et_2: Ptr(object_vtable), ev_3: Ptr(object)) -> block1(et_2, ev_3, n_0)
  block1(et_4: Ptr(object_vtable), ev_5: Ptr(object), n_6: Signed):
    v7: Void = direct_call(@print_class, et_4)
    v8: Signed = getfield(et_4, #subclassrange_min)
    v9: Bool = int_between(3, v8, 4)
    switch v9
      False -> return(-1)
      True -> block2(ev_5)
  block2(ev_10: Ptr(object)):
    e_11: Ptr(inst_MyError) = cast_pointer(ev_10)
    v12: Signed = getfield(e_11, #code)
    -> return(v12)
  returns v13: Signed
  raises v14: Ptr(object_vtable), v15: Ptr(object)
}

graph in_order(n_0) {
  block0(n_0: Signed):
    v1: Signed = direct_call(@middle, n_0)
    switch last_exception
      -> return(v1)
      &3 -> return(-4)
      &1 catch(et_2: Ptr(object_vtable), _) -> block1(et_2)
      &0 -> return(-10)
  block1(et_3: Ptr(object_vtable)):
    v4: Void = direct_call(@print_class, et_3)
    -> return(-2)
  returns v5: Signed
  raises v6: Ptr(object_vtable), v7: Ptr(object)
}

graph void_raiser(n_0) {
  block0(n_0: Signed):
    v1: Bool = int_eq(n_0, 1)
    switch v1
      False -> return(None)
      True -> except(&1, &5)
  returns v2: Void
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}

graph float_raiser(n_0) {
  block0(n_0: Signed):
    v1: Void = direct_call(@void_raiser, n_0)
    -> return(2.5)
  returns v2: Float
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}

graph void_and_float(n_0) {
  block0(n_0: Signed):
    v1: Float = direct_call(@float_raiser, n_0)
    switch last_exception
      -> block1(v1)
      &0 -> return(-7)
  block1(x_2: Float):
    v3: Signed = cast_float_to_int(x_2)
    -> return(v3)
  returns v4: Signed
  raises v5: Ptr(object_vtable), v6: Ptr(object)
}

graph reraiser(n_0) {
  block0(n_0: Signed):
    v1: Signed = direct_call(@middle, n_0)
    switch last_exception
      -> return(v1)
      &3 catch(et_2: Ptr(object_vtable), ev_3: Ptr(object)) -> block1(et_2, ev_3)
  block1(et_4: Ptr(object_vtable), ev_5: Ptr(object)):
    v6: Void = direct_call($rpy_print_str, "re-raising\x0a")
    -> except(et_4, ev_5)
  returns v7: Signed
  raises v8: Ptr(object_vtable), v9: Ptr(object)
}

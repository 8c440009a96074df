package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Writes a property only when it carries information, like Go's {@code omitempty}: no nulls, empty
 * strings, empty Optionals, empty collections, or records whose every field is empty. The last case
 * is why {@code NON_EMPTY} is not enough: a claim without status must not come back with {@code
 * "status": {}}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
@JacksonAnnotationsInside
@JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = EmptyFilter.class)
@interface OmitEmpty {}

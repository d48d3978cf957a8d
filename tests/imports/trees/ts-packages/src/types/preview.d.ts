/// <reference types="gauges/preview" />
